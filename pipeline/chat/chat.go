// Package chat holds the messages of a conversation with a model: what the
// programmer agent sends (package programmer) and what the attempt log
// records (package attemptlog). It knows no model client, so that the
// record and its renderers do not depend on one.
package chat

// Role is the author of a message.
type Role string

// The roles of a chat, spelled as OpenAI-compatible servers read them.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one chat message. Its JSON form, {"Role": ..., "Content": ...},
// is part of the attempt log's and must not change.
type Message struct {
	Role    Role
	Content string
}
