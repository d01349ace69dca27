package dataset

import (
	"fmt"
	"slices"
	"strings"
)

// Filter selects problems in file order. With ids, only those tasks are kept
// (an id the set does not contain is an error naming it); then, with
// limit > 0, only the first limit of what remains. Errors are kept as they are.
func (s Set) Filter(limit int, ids []string) (Set, error) {
	problems := s.Problems
	if len(ids) > 0 {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		problems = nil
		for _, p := range s.Problems {
			if want[p.TaskID] {
				problems = append(problems, p)
				delete(want, p.TaskID)
			}
		}
		if len(want) > 0 {
			var unknown []string
			for _, id := range ids {
				if want[id] {
					unknown = append(unknown, id)
					delete(want, id)
				}
			}
			return Set{}, fmt.Errorf("unknown task ids: %s", strings.Join(unknown, ", "))
		}
	}
	if limit > 0 && limit < len(problems) {
		problems = problems[:limit]
	}
	return Set{Problems: slices.Clone(problems), Errors: slices.Clone(s.Errors)}, nil
}
