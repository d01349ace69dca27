// Package programmer is PyCapsule's programmer agent: the prompts of its
// generation and fix modes, the conversation history kept between debug
// attempts, and the client for an OpenAI-compatible chat completion endpoint
// (OpenAI, vLLM, Ollama, llama.cpp's server).
//
// A run starts with one generation call and continues with fix calls:
//
//	conv := programmer.NewConversation(programmer.KindFunction, task.Render(), programmer.DefaultHistory)
//	reply, err := client.Complete(ctx, conv.GenerationMessages())
//	// ... run the tests; on failure:
//	reply, err = client.Complete(ctx, conv.FixMessages(feedback, code))
package programmer
