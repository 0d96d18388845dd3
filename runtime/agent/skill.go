package agent

import (
	"bufio"
	"regexp"
	"strings"

	venue "github.com/gridvenue/venue"
)

// Skill is a parsed SKILL.md: frontmatter name and description, and the
// whole text.
type Skill struct {
	Name        string
	Description string
	Text        string
}

var skillName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// MaxSkillSize bounds one SKILL.md.
const MaxSkillSize = 256 << 10

// ParseSkill reads SKILL.md text: a frontmatter block between "---" lines
// holding at least "name" and "description" (YAML scalars on one line),
// then Markdown. The name becomes a lattice path segment.
// Returns EINVALID saying what is missing.
func ParseSkill(text string) (*Skill, error) {
	if len(text) > MaxSkillSize {
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md is %d bytes; the limit is %d", len(text), MaxSkillSize)
	}
	sc := bufio.NewScanner(strings.NewReader(strings.TrimLeft(text, "\ufeff \t\r\n")))
	sc.Buffer(make([]byte, 0, 4096), MaxSkillSize+1)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md must start with a frontmatter block: a line '---', then 'name: ...' and 'description: ...', then '---'")
	}
	s := &Skill{Text: text}
	closed := false
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "---" {
			closed = true
			break
		}
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue // nested YAML and comments are kept in the text, not read
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "name":
			s.Name = unquote(v)
		case "description":
			s.Description = unquote(v)
		}
	}
	switch {
	case !closed:
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md frontmatter is not closed: end it with a line '---'")
	case s.Name == "":
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md frontmatter has no 'name': add 'name: my-skill'")
	case !skillName.MatchString(s.Name):
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md name %q is not valid: use 1 to 64 letters, digits, '-', '_' or '.'", clip(s.Name))
	case s.Description == "":
		return nil, venue.Errorf(venue.EINVALID, "SKILL.md frontmatter has no 'description': add 'description: what the skill does and when to use it'")
	}
	return s, nil
}

func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return v
}
