package pipeline_test

import (
	"encoding/json"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// pipelineLog adds a debugging dump to the attempt log.
type pipelineLog struct{ *attemptlog.Log }

func (l *pipelineLog) dump() string {
	data, _ := json.MarshalIndent(l.Log, "", "  ")
	return string(data)
}
