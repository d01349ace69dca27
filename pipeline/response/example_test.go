package response_test

import (
	"errors"
	"fmt"

	"github.com/capsulehq/capsule/pipeline/response"
)

func ExampleParse() {
	answer := "Use a set to drop duplicates.\n\n" +
		"### Requirements\nNone\n\n" +
		"### Code\n```python\ndef dedupe(xs):\n    return list(dict.fromkeys(xs))\n```\n"
	resp, err := response.Parse(answer)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n%v\n%s", resp.Reasoning, resp.Requirements, resp.Code)
	// Output:
	// "Use a set to drop duplicates."
	// []
	// def dedupe(xs):
	//     return list(dict.fromkeys(xs))
}

func ExampleParse_noCode() {
	_, err := response.Parse("I am not sure what the function should return.")
	if errors.Is(err, response.ErrNoCode) {
		fmt.Println(response.FormatReminder[:44])
	}
	// Output: No code could be extracted from your answer.
}
