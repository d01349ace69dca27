package report

// Result is the outcome of one benchmark problem: one line of results.jsonl.
type Result struct {
	TaskID string `json:"task_id"`
	// Solved reports whether the final code passed the eval tests.
	Solved bool `json:"solved"`
	// DebugPassed reports whether the final code passed the debug tests.
	DebugPassed bool `json:"debug_passed"`
	// AttemptIndex is 0 when the first generation passed, k when the k-th
	// fix passed, and -1 when the problem was not solved.
	AttemptIndex int `json:"attempt_index"`
	// ModelCalls is 1 + the number of fix calls made.
	ModelCalls       int     `json:"model_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
	FinalCode        string  `json:"final_code"`
	// Feedback holds the feedback message of each failed attempt, in order.
	Feedback []string `json:"feedback"`
	// Environment, when set, says why the problem's reference solution
	// fails in the sandbox (a library or data the image lacks, network
	// access): the model was not asked and the problem counts as unsolved.
	Environment string `json:"environment,omitempty"`
	// Error is set when the run itself failed (model or sandbox error).
	Error string `json:"error,omitempty"`
	// CPULimitSeconds is the CPU-time limit each test run of the problem
	// had; ReferenceCPUSeconds the CPU time its reference solution used on
	// the evaluation tests, when it was measured to size that limit.
	CPULimitSeconds     float64 `json:"cpu_limit_seconds,omitempty"`
	ReferenceCPUSeconds float64 `json:"reference_cpu_seconds,omitempty"`
}
