// Package deploy holds the deployment examples (Kubernetes manifests,
// Prometheus rules, the compose stack) and, in tests only, their validation.
package deploy

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
