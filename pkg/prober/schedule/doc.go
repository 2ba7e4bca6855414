// Package schedule decides how a warmup's probes are sent: the no-scatter
// step, then the plan's queries by Concurrency workers with no barrier
// between rounds, in a lane per engine (a cold multi-stage engine must not
// starve the single-stage one), a warm engine lending its workers to the
// other, pacing under the tables' query quotas (looked up, or learned from
// 429s) and the run's cap on queries a second, pauses when a lane's probes
// keep failing, and the JIT signal's
// reader. It sends through the Broker it is given and tells each thing it
// does as one event.Event, to the judge first (whose verdict ends the run)
// and then to the Observer. pkg/prober's Run makes one per run.
package schedule
