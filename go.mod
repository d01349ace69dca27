module github.com/capsulehq/capsule

go 1.24

require (
	github.com/docker/docker v28.5.2+incompatible // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
