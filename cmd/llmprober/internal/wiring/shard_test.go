package wiring

import (
	"fmt"
	"slices"
	"testing"
)

// TestShardOf pins the placement (replicas of different versions must
// agree) and checks the jump hash's properties: every shard in range, and
// going from n to n + 1 shards moves a target only into the new shard.
func TestShardOf(t *testing.T) {
	// The paper's algorithm places key 256 in bucket 520 of 1024.
	if got := jump(256, 1024); got != 520 {
		t.Errorf("jump(256, 1024) = %d, want 520", got)
	}
	got := make([]int, 0, 8)
	for _, name := range []string{"vllm", "tgi", "llama", "a", "b", "c", "d", "e"} {
		got = append(got, ShardOf(name, 4))
	}
	if want := pinnedShards; !slices.Equal(got, want) {
		t.Errorf("shards of 4 = %v, want %v", got, want)
	}
	moved := 0
	for i := range 2000 {
		name := fmt.Sprintf("target-%d", i)
		for n := 1; n < 8; n++ {
			a, b := ShardOf(name, n), ShardOf(name, n+1)
			if a < 0 || a >= n || (a != b && b != n) {
				t.Fatalf("%s: shard %d of %d, then %d of %d", name, a, n, b, n+1)
			}
			if n == 4 && a != b {
				moved++
			}
		}
	}
	// About 1 in 5 moves from 4 to 5 shards: 400 of 2000.
	if moved < 320 || moved > 480 {
		t.Errorf("%d of 2000 targets moved from 4 to 5 shards; want about 400", moved)
	}
}

// pinnedShards are the shards of vllm, tgi, llama, a … e among 4.
var pinnedShards = []int{1, 1, 2, 2, 3, 0, 0, 2}
