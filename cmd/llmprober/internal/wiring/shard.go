package wiring

import (
	"hash/fnv"
)

// ShardOf returns the shard of the target called name among shards: the
// jump consistent hash (Lamping and Veach, 2014) of the name's 64-bit
// FNV-1a hash. It depends on the name alone, so every replica agrees
// without talking to the others, and going from n to n + 1 shards moves
// only the targets that land in the new shard (about 1 in n + 1).
func ShardOf(name string, shards int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return jump(h.Sum64(), shards)
}

// jump is the jump consistent hash of key among buckets buckets.
func jump(key uint64, buckets int) int {
	b, j := int64(-1), int64(0)
	for j < int64(buckets) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}
