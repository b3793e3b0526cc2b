package probe

import (
	"math/rand/v2"
	"time"
)

// Poisson is the open-loop strategy whose requests arrive as a Poisson
// process: request 0 is due at the run's start and the gaps between
// consecutive requests are independent exponential draws with mean 1/Rate
// seconds, from a generator seeded with Seed. The schedule is absolute and a
// pure function of n and the seed: the same seed gives the same arrival
// times on every run. Arrival times are computed lazily, keeping only the
// latest, so memory does not grow with the number of requests.
type Poisson struct {
	// Rate is the mean rate in requests per second; > 0 and finite.
	Rate float64
	// Seed seeds the inter-arrival draws.
	Seed uint64

	rng *rand.Rand
	n   uint64  // the request whose arrival time is at
	at  float64 // arrival time of request n, in seconds from the start
}

// NewPoisson returns a Poisson strategy; rate must be positive and finite.
func NewPoisson(rate float64, seed uint64) (*Poisson, error) {
	if err := checkRate(rate); err != nil {
		return nil, err
	}
	return &Poisson{Rate: rate, Seed: seed}, nil
}

// Name implements Strategy.
func (*Poisson) Name() string { return "poisson" }

// HasSchedule implements Strategy: Poisson arrivals are an arrival schedule.
func (*Poisson) HasSchedule() bool { return true }

// Next implements Strategy: the arrival time of request n. Asking for an
// earlier request than the last one replays the draws from the seed.
func (p *Poisson) Next(n uint64) Decision {
	if p.rng == nil || n < p.n {
		p.rng = rand.New(rand.NewPCG(p.Seed, p.Seed^0x5851f42d4c957f2d))
		p.n, p.at = 0, 0
	}
	for p.n < n {
		p.at += p.rng.ExpFloat64() / p.Rate
		p.n++
	}
	return Decision{Kind: Due, At: offset(p.at)}
}

// Issue implements Strategy; an open-loop strategy keeps no state.
func (*Poisson) Issue(uint64, Decision) {}

// Completed implements Strategy; an open-loop strategy ignores completions.
func (*Poisson) Completed(uint64, *Record, time.Duration) {}
