package testreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"path"
)

// HelperDir is the directory of the sandbox where the helper files are
// laid out (agent.PluginDir): the .pth line runs the boot from there by
// absolute path.
const HelperDir = "/capsule/plugin"

// ChannelEnv names the variable that holds the path of the report
// channel's socket; without it the boot and the plugin do nothing.
const ChannelEnv = "CAPSULE_TEST_CHANNEL"

// SetupUserBaseEnv names the variable that holds the user base a set-up
// phase's `pip install --user` wrote to (the sandbox's PYTHONUSERBASE,
// which Env replaces): the boot keeps its site directory on sys.path.
const SetupUserBaseEnv = "CAPSULE_SETUP_USERBASE"

// TripwireOff, added to a run's environment, makes the boot install the
// plugin's finder without the tripwire: its sessions are then reported as
// unwatched. Capsule's own tests use it to show the other defences
// holding alone.
const TripwireOff = "CAPSULE_TRIPWIRE=off"

// The helper files' names, relative to the helper directory.
const (
	BootFile   = "capsule_boot.py"
	PluginFile = PluginModule + ".py"
	userBase   = "userbase"
	// PluginModule is the plugin's module and its entry point's name.
	PluginModule = "capsule_testreport"
)

// The Python versions (3.N) whose user site directory holds the .pth line
// and the plugin's entry point.
const minPython, maxPython = 8, 15

//go:embed capsule_boot.py
var boot []byte

//go:embed capsule_testreport.py
var plugin []byte

// Plugin returns the source of the pytest plugin (stdlib and pytest >= 7).
func Plugin() []byte { return bytes.Clone(plugin) }

// HelperFiles returns the files to lay out, read-only, in HelperDir: paths
// relative to it, and their contents. They are the boot (capsule_boot.py,
// the tripwire and the plugin's finder), the plugin, and for each Python
// 3.8 to 3.15 a user site directory (userbase/lib/python3.N/site-packages)
// that holds:
//
//   - capsule_tripwire.pth, whose one line runs the boot by absolute path
//     when the interpreter starts, before any repository code and before
//     the working directory is on sys.path (its bytecode from
//     __pycache__ when present: compiling the helpers there, as root, once
//     they are laid out saves each interpreter and each pytest session a
//     few milliseconds, see [CompileCommand]);
//   - capsule_testreport-1.0.dist-info, whose entry_points.txt declares the
//     plugin under [pytest11] so that every pytest session loads it, which
//     the boot's finder then serves from HelperDir only. It has no RECORD:
//     pytest would otherwise mark the plugin for assertion rewriting, and
//     its rewriter looks the module up on sys.path.
func HelperFiles() map[string][]byte {
	bootPath := path.Join(HelperDir, BootFile)
	// The boot's code comes through the standard library's source loader
	// (frozen, in sys.modules from the start), which takes it from
	// __pycache__ when the sandbox compiled it there, else compiles it.
	pth := fmt.Sprintf("import sys; %q in sys.modules['os'].environ and exec(sys.modules['_frozen_importlib_external']"+
		".SourceFileLoader('capsule_boot', %q).get_code('capsule_boot'), {'__name__': '__capsule_boot__', '__file__': %q})\n",
		ChannelEnv, bootPath, bootPath)
	info := PluginModule + "-1.0.dist-info"
	site := map[string][]byte{
		"capsule_tripwire.pth":     []byte(pth),
		info + "/METADATA":         []byte("Metadata-Version: 2.1\nName: " + PluginModule + "\nVersion: 1.0\nSummary: Capsule's per-test report\n"),
		info + "/entry_points.txt": []byte("[pytest11]\n" + PluginModule + " = " + PluginModule + "\n"),
		info + "/top_level.txt":    []byte(PluginModule + "\n"),
		info + "/INSTALLER":        []byte("capsule\n"),
	}
	files := map[string][]byte{BootFile: bytes.Clone(boot), PluginFile: Plugin()}
	for n := minPython; n <= maxPython; n++ {
		dir := fmt.Sprintf("%s/lib/python3.%d/site-packages", userBase, n)
		for name, content := range maps.All(site) {
			files[dir+"/"+name] = bytes.Clone(content)
		}
	}
	return files
}

// CompileCommand is a command that compiles the boot and the plugin into
// __pycache__ of helperDir, to run as the owner of helperDir (root) after
// HelperFiles are laid out there and before the commands run; without it
// each interpreter compiles the boot, and each pytest session the plugin.
func CompileCommand(helperDir string) []string {
	return []string{"python3", "-m", "compileall", "-q", path.Join(helperDir, BootFile), path.Join(helperDir, PluginFile)}
}

// Env returns the variables that make every Python process of a command run
// the boot (the tripwire) and every pytest session load the plugin, from
// helperDir where HelperFiles are laid out, and send their records to the
// report channel's socket at channel. A command's own PYTHONPATH and
// PYTEST_ADDOPTS change neither; a command that sets PYTHONUSERBASE or
// PYTHONNOUSERSITE, runs python -s or -I, or runs pytest in a virtualenv
// without the system's site packages loads neither: its report then has no
// session, or sessions without a tripwire, which the reader must take as
// "no per-test report" or "tripwire not installed".
func Env(helperDir, channel string) []string {
	return []string{
		"PYTHONUSERBASE=" + path.Join(helperDir, userBase),
		ChannelEnv + "=" + channel,
	}
}
