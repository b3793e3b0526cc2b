package stats

import (
	"sync"
	"testing"
)

func TestPlanCacheIsTransparent(t *testing.T) {
	// Concurrent summaries with colliding sizes read the same intervals as a
	// fresh computation: the cache only ever saves time.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				n := int64(2 + (i*7+g*13)%150)
				c := []float64{0.9, 0.95}[i%2]
				p := planFor(n, c)
				if p.n != n || p.c != c {
					t.Errorf("planFor(%d, %v) returned the plan of (%d, %v)", n, c, p.n, p.c)
					return
				}
				for k, l := range Levels() {
					if want := PercentileRanks(n, l, c); p.ranks[k] != want {
						t.Errorf("plan ranks for n = %d %s = %+v, want %+v", n, l, p.ranks[k], want)
						return
					}
				}
				if want := StudentT((1+c)/2, float64(n-1)); p.t != want {
					t.Errorf("plan t for n = %d = %v, want %v", n, p.t, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
