package edit

import "testing"

func TestMergeBrokerConf(t *testing.T) {
	lines := "pinot.broker.client.access.protocols=warmup\npinot.broker.client.access.protocols.warmup.port=8098"
	for _, tc := range []struct{ name, conf, want string }{
		{"appends", "pinot.broker.client.queryPort=8099",
			"pinot.broker.client.queryPort=8099\npinot.broker.client.access.protocols=warmup\npinot.broker.client.access.protocols.warmup.port=8098"},
		{"joins an existing listener list", "pinot.broker.client.access.protocols=https\nx=1",
			"pinot.broker.client.access.protocols=https,warmup\nx=1\npinot.broker.client.access.protocols.warmup.port=8098"},
		{"rewrites its own port in place", "pinot.broker.client.access.protocols = warmup\npinot.broker.client.access.protocols.warmup.port=7000",
			"pinot.broker.client.access.protocols=warmup\npinot.broker.client.access.protocols.warmup.port=8098"},
		{"ignores comments", "# pinot.broker.client.access.protocols=old",
			"# pinot.broker.client.access.protocols=old\npinot.broker.client.access.protocols=warmup\npinot.broker.client.access.protocols.warmup.port=8098"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeBrokerConf(tc.conf, lines)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if again := mergeBrokerConf(got, lines); again != got {
				t.Errorf("not idempotent:\n%s", again)
			}
		})
	}
}
