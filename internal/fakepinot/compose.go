package fakepinot

// Default answers sql as the broker does when no SetAnswer override is set
// (multi-stage by its SET statement, as SetMultiStage says): an override that
// changes some answers only passes the others here.
func (b *Broker) Default(sql string) (int, string) { return b.defaultAnswer(sql, "") }

// NewThreeServerCluster starts a broker routing ThreeServers and a controller
// listing ThreeServerTables; the caller closes both.
func NewThreeServerCluster() (*Broker, *Controller) {
	return NewBroker(ThreeServers()), NewController(ThreeServerTables()...)
}
