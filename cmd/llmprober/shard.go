package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
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
	// fs is the flag set holding them, to tell a --shard given from none.
	fs *flag.FlagSet
}

// addShardFlags registers --shard and --shards on fs, defaulting to
// LLMPROBER_SHARD and LLMPROBER_SHARDS.
func addShardFlags(fs *flag.FlagSet, f *shardFlags, environ map[string]string) {
	f.fs = fs
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
	case f.shards > 1 && environ[envShard] == "" && !f.shardGiven():
		return fmt.Errorf("%w: --shards %d needs --shard (or $%s), this replica's shard from 0 to %d: without it every replica would probe shard 0 and the other shards' targets none",
			errShard, f.shards, envShard, f.shards-1)
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
		if wiring.ShardOf(t.Name, f.shards) == f.shard {
			kept = append(kept, t)
		}
	}
	cfg.Targets = kept
}

// shardGiven reports whether --shard was on the command line.
func (f shardFlags) shardGiven() bool {
	given := false
	if f.fs != nil {
		f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "shard" })
	}
	return given
}
