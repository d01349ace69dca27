package dataset

import "maps"

// Tasks whose upstream eval tests are unsound: the reference solution fails
// them. The lists are those of each dataset's SOURCE.txt, and
// TestReferenceSolutions checks that they are exact. MBPP-ET task 123, which
// SOURCE.txt lists as a timeout, is sound: its reference passes in about two
// minutes, and an efficient solution in well under a second.

// Reasons shared by several tasks.
const (
	etUnquoted   = "ET asserts compare with unquoted strings, which Python reads as undefined names or invalid syntax"
	etStringForm = "ET asserts expect a value where MBPP's reference (and its own tests) return the value's string form"
)

var brokenHumanEvalET = map[string]string{
	"HumanEval/2":   "ET assert truncate_number(3.452) == 0.452 compares floats exactly; the reference gives 0.45199999999999996",
	"HumanEval/38":  "ET asserts use the undefined name encoded_str",
	"HumanEval/44":  "ET asserts use the undefined name x",
	"HumanEval/50":  "ET asserts use the undefined names copy and encoded_str",
	"HumanEval/53":  "ET asserts use the undefined names x and y",
	"HumanEval/151": "ET asserts use the undefined names lst and odd_sum",
}

// brokenMBPPET holds CodeScore's MBPP-ET tasks with unsound asserts; the ChatDev
// copy carries the same asserts for these tasks.
var brokenMBPPET = map[string]string{
	"75":  etStringForm + " (find_tuples: '[]')",
	"83":  etUnquoted + " (get_Char)",
	"88":  "ET asserts use Counter without importing it",
	"99":  etStringForm + " (decimal_to_binary: '100')",
	"117": etStringForm + " (list_to_float)",
	"160": etUnquoted + " (solution: == No solution)",
	"395": etUnquoted + " (first_non_repeating_character)",
	"427": etUnquoted + " (change_date_format)",
	"437": etUnquoted + " (remove_odd)",
	"438": etStringForm + " (count_bidirectional: '1')",
	"444": etStringForm + " (trim_tuple)",
	"593": etUnquoted + " (removezero_ip: == .495001507801 reads as a float)",
	"602": etUnquoted + " (first_repeated_char)",
	"640": "ET asserts expect remove_parenthesis to strip a trailing space the reference keeps",
	"757": etStringForm + " (count_reverse_pairs: '0')",
}

// brokenMBPPETChatDev adds a task whose entry point the ChatDev fork got wrong.
var brokenMBPPETChatDev = withBroken(brokenMBPPET, map[string]string{
	"408": "upstream entry_point push is an inner helper; the asserts call k_smallest_pairs, so check(push) fails",
})

var brokenHumanEvalPlusOrigin = map[string]string{
	"HumanEval/32": "the OriginFmt oracle calls _poly(*candidate(*inp), inp), a TypeError for any float result",
}

// withBroken returns the union of two broken-task maps.
func withBroken(base, extra map[string]string) map[string]string {
	m := maps.Clone(base)
	maps.Copy(m, extra)
	return m
}
