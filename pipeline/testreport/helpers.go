package testreport

// STUB of helper C's helpers.go, so that this branch compiles: C's
// version, which lays out the boot, the tripwire and the plugin under a
// user base, replaces this file whole.

import (
	"bytes"
	_ "embed"
)

// The pytest plugin: its module and file name.
const (
	PluginModule = "capsule_testreport"
	PluginFile   = PluginModule + ".py"
)

//go:embed capsule_testreport.py
var plugin []byte

// Plugin returns the source of the pytest plugin (stdlib and pytest >= 7).
func Plugin() []byte { return bytes.Clone(plugin) }

// ChannelEnv names the variable that tells the plugin and the tripwire
// the report channel's socket.
const ChannelEnv = "CAPSULE_TEST_CHANNEL"

// HelperFiles returns the files a sandbox lays out read-only under its
// helper directory, keyed by slash-separated paths relative to it.
func HelperFiles() map[string][]byte {
	return map[string][]byte{PluginFile: Plugin()}
}

// Env returns the variables of every test run: the user base under
// helperDir that loads the tripwire and the plugin, and the channel.
func Env(helperDir, channel string) []string {
	return []string{"PYTHONUSERBASE=" + helperDir + "/userbase", ChannelEnv + "=" + channel}
}
