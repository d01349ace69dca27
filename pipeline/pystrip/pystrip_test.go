package pystrip

import (
	"slices"
	"strings"
	"testing"
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string
		removed [][2]int
	}{
		{
			name:    "main guard and prints",
			src:     "import os\n\ndef f(x):\n    print(x)\n    return x\n\nprint(f(3))\nif __name__ == '__main__':\n    f(1)\n\n    f(2)\n",
			want:    "import os\n\ndef f(x):\n    print(x)\n    return x\n\n\n\n\n\n\n",
			removed: [][2]int{{7, 7}, {8, 11}},
		},
		{
			name:    "multi-line call and input",
			src:     "x = 1\nprint(\n    x,\n    ')'\n)\nvalue = input()\nn, m = map(int, input().split())\nk = int(input('k? '))\ninput(\"press enter\")\ninputs = [1]\n",
			want:    "x = 1\n\n\n\n\n\nn, m = map(int, input().split())\n\n\ninputs = [1]\n",
			removed: [][2]int{{2, 5}, {6, 6}, {8, 8}, {9, 9}},
		},
		{
			name: "real top-level work stays",
			src:  "app = Flask(__name__)\nregister(handler)\nlogging.basicConfig()\nif DEBUG:\n    print('debug')\n",
			want: "app = Flask(__name__)\nregister(handler)\nlogging.basicConfig()\nif DEBUG:\n    print('debug')\n",
		},
		{
			name: "prints inside strings and brackets stay",
			src:  "DOC = \"\"\"\nprint(1)\nif __name__ == '__main__':\n\"\"\"\nitems = [\nprint,\n]\n",
			want: "DOC = \"\"\"\nprint(1)\nif __name__ == '__main__':\n\"\"\"\nitems = [\nprint,\n]\n",
		},
		{
			name:    "guard then more code",
			src:     "if __name__ == \"__main__\":\n    main()\n# trailing comment\ndef g():\n    pass\n",
			want:    "\n\n\ndef g():\n    pass\n",
			removed: [][2]int{{1, 3}},
		},
		{
			name: "unterminated string is left alone",
			src:  "s = '''\nprint(1)\n",
			want: "s = '''\nprint(1)\n",
		},
		{
			name:    "backslash continuation",
			src:     "total = 1 + \\\n    2\nprint(total, \\\n      total)\n",
			want:    "total = 1 + \\\n    2\n\n\n",
			removed: [][2]int{{3, 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := Strip(tt.src)
			if got != tt.want || !slices.Equal(removed, tt.removed) {
				t.Errorf("Strip() = %q, %v\nwant      %q, %v", got, removed, tt.want, tt.removed)
			}
		})
	}
}

func FuzzStrip(f *testing.F) {
	f.Add("print(1)\nif __name__ == '__main__':\n    x()\n")
	f.Add("s = '''\n'''\nprint((\n))\n")
	f.Fuzz(func(t *testing.T, src string) {
		got, removed := Strip(src)
		if len(got) > len(src) {
			t.Fatalf("Strip grew the source")
		}
		if strings.Count(got, "\n") != strings.Count(src, "\n") {
			t.Fatalf("the number of lines changed")
		}
		if len(removed) == 0 && got != src {
			t.Fatalf("changed the source without removing anything")
		}
	})
}

func TestStripAdded(t *testing.T) {
	src := "def f():\n    return 1\n\nprint(f())\n\nif __name__ == '__main__':\n    f()\n    print('done')\n"
	tests := []struct {
		name    string
		added   []bool
		removed [][2]int
	}{
		{"the entry point was there", []bool{false, true, false, false, false, false, false, false}, nil},
		{"a line added inside the entry point", []bool{false, false, false, false, false, false, false, true}, nil},
		{"the print was added", []bool{false, false, false, true, false, false, false, false}, [][2]int{{4, 4}}},
		{"all added", nil, [][2]int{{4, 4}, {6, 8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := StripAdded(src, tt.added)
			if !slices.Equal(removed, tt.removed) {
				t.Errorf("removed %v, want %v", removed, tt.removed)
			}
			lines := strings.Split(got, "\n")
			for _, r := range tt.removed {
				for n := r[0] - 1; n < r[1]; n++ {
					if lines[n] != "" {
						t.Errorf("line %d = %q, want it blanked", n+1, lines[n])
					}
				}
			}
			if len(tt.removed) == 0 && got != src {
				t.Errorf("StripAdded changed the source:\n%s", got)
			}
		})
	}
}
