package scenario

import (
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// IterationVar is the variable every iteration sets to its number (0-based,
// in decimal).
const IterationVar = "iteration"

// template parses src as a text/template over the iteration's variables.
// Its text may hold the request placeholders of pkg/reqtemplate ({seq},
// {rand:N}, {alpha:N}, {uuid}; a malformed one is an error). Only text
// and {{.name}} actions are allowed (variables are strings: no
// fields, functions, pipelines or control structures), so a template that
// compiles renders whenever its variables are set. A variable not defined
// by the scenario's vars or an earlier step's extractions is an error.
func (c *compiler) template(path, src string) *template.Template {
	t, err := template.New(path).Option("missingkey=error").Parse(src)
	if err != nil {
		c.fail(path, "%v", strings.TrimPrefix(err.Error(), "template: "))
		return nil
	}
	var unknown []string
	for _, n := range t.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			if _, err := reqtemplate.Parse(string(n.Text), reqtemplate.Options{}); err != nil {
				c.fail(path, "%v", err)
				return nil
			}
		case *parse.ActionNode:
			name, ok := plainVar(n)
			if !ok {
				c.fail(path, "only {{.name}} is supported, not %s", n)
				return nil
			}
			if !c.vars[name] && !slices.Contains(unknown, name) {
				unknown = append(unknown, name)
			}
		default:
			c.fail(path, "only {{.name}} is supported, not %s", n)
			return nil
		}
	}
	for _, name := range unknown {
		c.fail(path, "unknown variable %q (set it in vars or extract it in an earlier step)", name)
	}
	return t
}

// plainVar returns name when the action is exactly {{.name}}.
func plainVar(a *parse.ActionNode) (string, bool) {
	p := a.Pipe
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return "", false
	}
	f, ok := p.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 {
		return "", false
	}
	return f.Ident[0], true
}
