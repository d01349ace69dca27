// Package repoconfig reads a repository's Capsule configuration,
// .github/capsule.yml, and works out the command that runs the repository's
// tests when the configuration does not name one.
//
// Every key is optional; a missing file means the defaults:
//
//	label: capsule                 # the issue label that triggers Capsule
//	test: python3 -m pytest -q     # detected when absent
//	reports: ["target/surefire-reports/*.xml"]  # JUnit XML files; the runner's usual places when absent
//	setup: pip install -e .        # run before the tests; none by default
//	network: false                 # network for setup only; tests never have it
//	image: capsule-python          # sandbox image; Capsule's own when absent
//	devcontainer: true             # false: never take image and set-up from devcontainer.json
//	timeout: 5m                    # one test run: Go syntax, or whole seconds
//	max_attempts: 5                # fix attempts after the first generation
//	history: 1                     # earlier attempts shown to the model
//	protected: ["tests/**", "test/**", "**/test_*.py", "**/*_test.py", ".github/**"]
//	on_failure: draft              # draft (a draft pull request) or comment
//	reproduce: auto                # auto, required or off: a test that shows the issue first
//	reproduce_tries: 3             # answers of the test designer for one job
//	memory: 512m                   # memory of the tests: 512m, 2g, 2GiB, or bytes
//	cpus: 1                        # CPU cores of the tests, such as 2 or 1.5
//	disk: 1g                       # bytes the tests may write in the workspace
//	allow_test_infrastructure_changes: false  # let the model change conftest.py and pytest's settings
//	ci_rounds: 2                   # rounds on Capsule's pull request that fix its failing checks; 0: none
//
// The operator who runs Capsule caps timeout, max_attempts, history, memory,
// cpus, disk, reproduce_tries and ci_rounds; a value above the operator's maximum is cut to it and the log
// says so. The test infrastructure (conftest.py, pytest's settings,
// sitecustomize.py, .pth files; see package edits) is protected whatever
// protected says; only allow_test_infrastructure_changes lifts that.
//
// When the configuration sets neither image nor setup, the repository's
// devcontainer.json may (ReadDevcontainer): its image mapped to one of
// Capsule's offline images, its create-time commands as the set-up, its
// environment where safe, and a note for everything else it asks for.
//
// Parsing is strict: unknown keys, wrong types and bad values are errors that
// name the file, the line and the key, so that they can be shown to the user
// as they are.
package repoconfig
