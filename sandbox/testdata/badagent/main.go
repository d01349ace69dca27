// Command badagent stands in for the sandbox agent in tests: it greets the
// host properly, then answers the first request the way $BAD_ANSWER says,
// breaking the protocol, so that tests can show that the host ends the
// session with an infrastructure error and never reads the answer as a
// result.
package main

import (
	"encoding/binary"
	"os"
	"strings"
	"time"

	"github.com/capsulehq/capsule/sandbox/agent"
)

func main() {
	if err := agent.WriteFrame(os.Stdout, agent.Response{Ready: true, Protocol: agent.ProtocolVersion}, agent.MaxGreeting); err != nil {
		os.Exit(1)
	}
	var req agent.Request
	if err := agent.ReadFrame(os.Stdin, agent.MaxRequest, &req); err != nil {
		os.Exit(1)
	}
	forged := `{"exit_code":0,"stdout":"` + "cGFzc2Vk" + `"}`
	raw := func(n uint32, body string) {
		os.Stdout.Write(append(binary.BigEndian.AppendUint32(nil, n), body...))
	}
	switch os.Getenv("BAD_ANSWER") {
	case "flood": // 1.5 GB without a newline, the old attack on a JSON stream
		line := []byte(strings.Repeat("x", 1<<20))
		for range 1536 {
			if _, err := os.Stdout.Write(line); err != nil {
				break
			}
		}
	case "huge": // a frame header that claims 3 GB
		raw(3<<30, forged)
	case "json-line": // the forged line of the old protocol
		os.Stdout.WriteString(forged + "\n")
	case "garbage":
		raw(9, "not json!")
	case "unknown-field":
		body := `{"exit_code":0,"verdict":"pass"}`
		raw(uint32(len(body)), body)
	case "trailing":
		body := forged + forged
		raw(uint32(len(body)), body)
	case "greeting":
		agent.WriteFrame(os.Stdout, agent.Response{Ready: true, Protocol: agent.ProtocolVersion}, agent.MaxGreeting)
	case "too-much-output":
		agent.WriteFrame(os.Stdout, agent.Response{Stdout: make([]byte, req.OutputLimit+1<<10), StdoutBytes: 1 << 30}, agent.MaxRequest)
	case "cut": // half a frame, then the agent is gone
		raw(100, forged)
		os.Exit(0)
	}
	// Keep the container alive, so that only the answer can end the run.
	time.Sleep(time.Hour)
}
