package probe

import "time"

// SchedulerObserver is told the scheduler's own measurements, which belong
// to no single request's record. Implementations must be safe for concurrent
// use and must not block.
type SchedulerObserver interface {
	// GenerationDelay: the workload took d to produce a conversation, from
	// starting on it to having its requests (every single-turn request is a
	// conversation of one turn). Recorded once per conversation.
	GenerationDelay(target string, d time.Duration)
	// ThinkTime: a later turn of a conversation was sent, with the configured
	// think time d applied to it (it waited at least d after its predecessor
	// ended). Recorded when the turn is sent, once per later turn with a
	// non-zero think time, whether or not the strategy has a schedule; a turn
	// never sent records none.
	ThinkTime(target string, d time.Duration)
}

// GenerationDelay implements SchedulerObserver for each observer that does.
func (os Observers) GenerationDelay(target string, d time.Duration) {
	for _, o := range os {
		if s, ok := o.(SchedulerObserver); ok {
			s.GenerationDelay(target, d)
		}
	}
}

// ThinkTime implements SchedulerObserver for each observer that does.
func (os Observers) ThinkTime(target string, d time.Duration) {
	for _, o := range os {
		if s, ok := o.(SchedulerObserver); ok {
			s.ThinkTime(target, d)
		}
	}
}

// noScheduler discards scheduler measurements.
type noScheduler struct{}

func (noScheduler) GenerationDelay(string, time.Duration) {}
func (noScheduler) ThinkTime(string, time.Duration)       {}
