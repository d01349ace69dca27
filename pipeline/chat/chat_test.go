package chat

import (
	"encoding/json"
	"testing"
)

// TestMessageJSON pins the form attempt logs written before keep reading
// back in.
func TestMessageJSON(t *testing.T) {
	raw, err := json.Marshal([]Message{{Role: System, Content: "s"}, {Role: User, Content: "u"}, {Role: Assistant, Content: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"Role":"system","Content":"s"},{"Role":"user","Content":"u"},{"Role":"assistant","Content":"a"}]`
	if string(raw) != want {
		t.Errorf("JSON %s, want %s", raw, want)
	}
}
