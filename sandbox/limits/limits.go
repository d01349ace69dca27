// Package limits holds what callers check of the sandbox's limits without
// linking the Docker client: the byte-size notation of memory and disk
// limits and their minima. It imports only the standard library, so the
// configuration parser and the command line use it as freely as package
// sandbox does.
package limits

import "fmt"

// The least sizes the sandbox accepts.
const (
	MinMemory = 6 << 20 // the least memory Docker gives a container
	MinDisk   = 1 << 20 // the least disk a workspace gets
)

// A Minimum is the least size a limit accepts, and whose minimum it is.
type Minimum struct {
	Bytes int64
	// Whose names the minimum in errors, e.g. "Docker's minimum".
	Whose string
}

// Memory and Disk are the minima of the memory and disk limits.
var (
	Memory = Minimum{Bytes: MinMemory, Whose: "Docker's minimum"}
	Disk   = Minimum{Bytes: MinDisk, Whose: "the minimum"}
)

// Allows reports whether n bytes is at least m: the one check of a
// limit's minimum.
func (m Minimum) Allows(n int64) bool { return n >= m.Bytes }

// Check returns nil when m allows n, else an error such as
// "1 MiB is below Docker's minimum of 6 MiB".
func (m Minimum) Check(n int64) error {
	if m.Allows(n) {
		return nil
	}
	return fmt.Errorf("%s is below %s of %s", FormatBytes(n), m.Whose, m)
}

// String renders the minimum's size, such as "6 MiB".
func (m Minimum) String() string { return FormatBytes(m.Bytes) }

// FormatBytes renders n in the largest binary unit that divides it evenly
// (512 MiB, 1 GiB), or in bytes.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// ParseBytes reads sizes as Docker's CLI writes them: 512m, 1g, 100k, 1024.
func ParseBytes(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := int64(1)
	num := s
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, num = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		mult, num = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		mult, num = 1<<30, s[:len(s)-1]
	case 'b', 'B':
		num = s[:len(s)-1]
	}
	var n int64
	if _, err := fmt.Sscanf(num, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != num {
		return 0, fmt.Errorf("bad size %q: want a number with an optional k, m or g suffix", s)
	}
	return n * mult, nil
}
