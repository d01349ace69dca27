package repocontext

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
)

const (
	// minMessageLen and minMessageWords are how long a fixed piece of a
	// string literal must be, in bytes and in words, to be looked for in
	// the issue: shorter pieces ("not found", ": %s") are everywhere.
	minMessageLen   = 15
	minMessageWords = 3
	// messageGram is the length of the windows of the text a
	// piece's head is first looked up among, before the piece is searched.
	messageGram = 8
)

// messageText is the text, its white space collapsed, prepared for
// finding in it the fixed pieces of the repository's string literals: the
// messages a program prints, quoted by the issue, with their placeholders
// filled in.
type messageText struct {
	text string
	// grams holds every messageGram bytes of text, so that most pieces
	// are refused without searching it.
	grams map[uint64]struct{}
}

// newMessageText prepares s; nil when s is too short to hold a message.
func newMessageText(s string) *messageText {
	text := strings.Join(strings.Fields(s), " ")
	if len(text) < minMessageLen {
		return nil
	}
	m := &messageText{text: text, grams: make(map[uint64]struct{}, len(text))}
	for i := 0; i+messageGram <= len(text); i++ {
		m.grams[binary.LittleEndian.Uint64([]byte(text[i:]))] = struct{}{}
	}
	return m
}

// holds reports whether the text holds piece, whose white space
// is already single spaces.
func (m *messageText) holds(piece []byte) bool {
	if _, ok := m.grams[binary.LittleEndian.Uint64(piece)]; !ok {
		return false
	}
	return strings.Contains(m.text, string(piece))
}

// messageHit is a fixed piece of a string literal of a file that the issue
// holds, and the literal's line.
type messageHit struct {
	text string
	line int32
}

// messages appends to dst the pieces of the string literals on line, one
// line of source, that the issue's text holds. A literal is cut at its
// placeholders ({name}, %s, %(name)r) and escapes; a triple-quoted string
// (a docstring) is skipped.
func (m *messageText) messages(line []byte, n int32, dst []messageHit) []messageHit {
	for len(line) > 0 {
		open := bytes.IndexAny(line, `"'`)
		if open < 0 {
			break
		}
		q := line[open]
		if bytes.HasPrefix(line[open:], []byte{q, q, q}) {
			break
		}
		end := open + 1
		for end < len(line) && line[end] != q {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(line) {
			break
		}
		for _, piece := range literalPieces(line[open+1 : end]) {
			if m.holds(piece) && !slices.ContainsFunc(dst, func(h messageHit) bool { return h.text == string(piece) }) {
				dst = append(dst, messageHit{text: string(piece), line: n})
			}
		}
		line = line[end+1:]
	}
	return dst
}

// literalPieces returns the fixed pieces of a string literal's body long
// enough to be told apart, cut at placeholders and escapes, trimmed.
func literalPieces(body []byte) [][]byte {
	if len(body) < minMessageLen {
		return nil
	}
	var out [][]byte
	start := 0
	cut := func(end, next int) {
		if p := bytes.TrimSpace(body[start:end]); len(p) >= minMessageLen && bytes.Count(p, []byte{' '}) >= minMessageWords-1 && !bytes.Contains(p, []byte("  ")) {
			out = append(out, p)
		}
		start = next
	}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			cut(i, min(i+2, len(body)))
			i++
		case '{':
			if end := bytes.IndexByte(body[i:], '}'); end > 0 {
				cut(i, i+end+1)
				i += end
			}
		case '%':
			if end := placeholderEnd(body, i); end > i {
				cut(i, end)
				i = end - 1
			}
		}
	}
	cut(len(body), len(body))
	return out
}

// placeholderEnd returns the end of the printf-style placeholder at
// body[i] ('%'), or i when there is none.
func placeholderEnd(body []byte, i int) int {
	j := i + 1
	if j < len(body) && body[j] == '(' {
		k := bytes.IndexByte(body[j:], ')')
		if k < 0 {
			return i
		}
		j += k + 1
	}
	for j < len(body) && strings.IndexByte("-#0 +.0123456789", body[j]) >= 0 {
		j++
	}
	if j < len(body) && strings.IndexByte("sdrifgeExXcoa", body[j]) >= 0 {
		return j + 1
	}
	return i
}

// messagesIn finds the files holding messages the issue quotes, from the
// scans: a piece found in more than maxDefiners files is too common to
// tell. It records their lines in a.messages and the files, most pieces
// first, in a.messagers, each with the first piece it holds.
func (a *analysis) messagesIn(scans []fileScan) {
	files := make(map[string]int)
	for _, s := range scans {
		for _, h := range s.messages {
			files[h.text]++ // a file's pieces are distinct
		}
	}
	a.messages = make(map[int][]int)
	count := make(map[int]int)
	for f, s := range scans {
		for _, h := range s.messages {
			if files[h.text] > maxDefiners {
				continue
			}
			if count[f] == 0 {
				a.messagers = append(a.messagers, pick{file: f, why: "holds the message " + quoteMessage(h.text)})
			}
			count[f]++
			a.messages[f] = append(a.messages[f], int(h.line))
		}
	}
	slices.SortStableFunc(a.messagers, func(x, y pick) int { return cmp.Compare(count[y.file], count[x.file]) })
}

// maxMessageShown caps the message quoted in a file's reason.
const maxMessageShown = 60

// quoteMessage quotes a message for a reason, cut to maxMessageShown bytes.
func quoteMessage(s string) string {
	if len(s) > maxMessageShown {
		s = strings.ToValidUTF8(s[:maxMessageShown], "") + "..."
	}
	return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
}
