package scenario

import (
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// IterationVar is the variable every iteration sets to its number (0-based,
// in decimal).
const IterationVar = "iteration"

// template parses src as a text/template over the iteration's variables and
// fails on a variable not defined by the scenario's vars or an earlier
// step's extractions.
func (c *compiler) template(path, src string) *template.Template {
	t, err := template.New(path).Option("missingkey=error").Parse(src)
	if err != nil {
		c.fail(path, "%v", strings.TrimPrefix(err.Error(), "template: "))
		return nil
	}
	var unknown []string
	walk(t.Root, func(name string) {
		if !c.vars[name] && !slices.Contains(unknown, name) {
			unknown = append(unknown, name)
		}
	})
	for _, name := range unknown {
		c.fail(path, "unknown variable %q (set it in vars or extract it in an earlier step)", name)
	}
	return t
}

// walk calls f with the first identifier of every field ({{.name}}) in the tree.
func walk(n parse.Node, f func(string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walk(c, f)
		}
	case *parse.ActionNode:
		walk(n.Pipe, f)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, cmd := range n.Cmds {
			for _, a := range cmd.Args {
				walk(a, f)
			}
		}
	case *parse.FieldNode:
		f(n.Ident[0])
	case *parse.IfNode:
		walkBranch(&n.BranchNode, f)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, f)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, f)
	}
}

func walkBranch(b *parse.BranchNode, f func(string)) {
	walk(b.Pipe, f)
	walk(b.List, f)
	walk(b.ElseList, f)
}
