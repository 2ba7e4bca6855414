// Package find reads warmup-inject's manifest stream and finds the brokers in it: it cuts the
// stream into documents kept byte for byte (SplitStream, JoinStream), parses them (ParseStream,
// Encode), and finds each broker StatefulSet, by brokerPodLabels or as the official Pinot chart's
// broker, with what the other rooms need from it (Broker: its container, query port, config
// ConfigMap, image, CPU as configured, ServiceAccount), and the controller's URL from the
// stream's Services. It only reads: what is done to a broker once found (the editing, the boost,
// the rendering) is the other rooms' job, and it does no I/O, reading the bytes it is given.
package find
