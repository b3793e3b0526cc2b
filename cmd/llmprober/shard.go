package main

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/llmprober/llmprober/config"
)

// Variables giving the shard flags' defaults (config.CommandEnv).
const (
	envShard  = "LLMPROBER_SHARD"
	envShards = "LLMPROBER_SHARDS"
)

// shardFlags select one replica's share of the configured targets.
type shardFlags struct {
	// shard is this replica's shard, 0 to shards − 1.
	shard int
	// shards is the number of replicas sharing the targets; 1 probes all.
	shards int
}

// addShardFlags registers --shard and --shards on fs, defaulting to
// LLMPROBER_SHARD and LLMPROBER_SHARDS.
func addShardFlags(fs *flag.FlagSet, f *shardFlags, environ map[string]string) {
	fs.IntVar(&f.shard, "shard", 0, "this replica's shard, 0 to --shards minus 1; default $"+envShard+" or 0")
	fs.IntVar(&f.shards, "shards", 1, "replicas sharing the targets: each probes the targets whose name hashes to its shard; default $"+envShards+" or 1")
	for name, v := range map[string]string{"shard": environ[envShard], "shards": environ[envShards]} {
		if v != "" {
			_ = fs.Lookup(name).Value.Set(v)
			fs.Lookup(name).DefValue = v
		}
	}
}

// errShard marks bad shard settings.
var errShard = errors.New("invalid shard")

// validate checks the shard settings, including the environment values
// that could not be parsed.
func (f shardFlags) validate(environ map[string]string) error {
	for _, name := range []string{envShard, envShards} {
		if v := environ[name]; v != "" {
			if _, err := strconv.Atoi(v); err != nil {
				return fmt.Errorf("%w: %s=%s is not an integer", errShard, name, config.Quote(v))
			}
		}
	}
	switch {
	case f.shards < 1:
		return fmt.Errorf("%w: --shards must be at least 1 (got %d)", errShard, f.shards)
	case f.shard < 0 || f.shard >= f.shards:
		return fmt.Errorf("%w: --shard must be between 0 and --shards minus 1, %d (got %d)", errShard, f.shards-1, f.shard)
	}
	return nil
}

// apply keeps in cfg only the targets of this shard, in order.
func (f shardFlags) apply(cfg *config.Config) {
	if f.shards <= 1 {
		return
	}
	kept := cfg.Targets[:0:0]
	for _, t := range cfg.Targets {
		if shardOf(t.Name, f.shards) == f.shard {
			kept = append(kept, t)
		}
	}
	cfg.Targets = kept
}

// shardOf returns the shard of the target called name among shards: the
// jump consistent hash (Lamping and Veach, 2014) of the name's 64-bit
// FNV-1a hash. It depends on the name alone, so every replica agrees
// without talking to the others, and going from n to n + 1 shards moves
// only the targets that land in the new shard (about 1 in n + 1).
func shardOf(name string, shards int) int {
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
