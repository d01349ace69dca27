package testdata

import _ "embed" // for GitHubDescription

// GitHubDescription is GitHub's OpenAPI description of api.github.com,
// gzipped (openapi/api.github.com.json.gz), built into the binary so that
// the fake GitHub also runs outside tests, in `capsule demo`.
//
//go:embed openapi/api.github.com.json.gz
var GitHubDescription []byte
