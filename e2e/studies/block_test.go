package studies

import (
	"reflect"
	"strings"
	"testing"
)

// A block's opening comment may span lines: the first names the view and its arguments, the
// others are its spec; the body is what lies between the comment and the closing marker.
func TestParseReadsAMultiLineSpec(t *testing.T) {
	doc := "# Page\n\nProse.\n\n<!-- generated: rollout-rows pages=docs/x\n" +
		"  a broker | 300m | results/a.json on_fast\n\n" +
		"another | none | results/b.json off\n" +
		"-->\n\nold\n\n<!-- /generated -->\nafter\n" +
		"<!-- generated: rollout-table results/a.json arms=off -->\n<!-- /generated -->\n"
	blocks, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2: %+v", len(blocks), blocks)
	}
	b := blocks[0]
	if b.Line != 5 || b.View != "rollout-rows" || !reflect.DeepEqual(b.Args, []string{"pages=docs/x"}) || b.Body != "\nold\n" {
		t.Errorf("first block %+v", b)
	}
	if want := []string{"a broker | 300m | results/a.json on_fast", "another | none | results/b.json off"}; !reflect.DeepEqual(b.Spec, want) {
		t.Errorf("spec %q, want %q", b.Spec, want)
	}
	if b := blocks[1]; b.Line != 15 || b.View != "rollout-table" || !reflect.DeepEqual(b.Args, []string{"results/a.json", "arms=off"}) || b.Spec != nil || b.Body != "" {
		t.Errorf("second block %+v", b)
	}
}

// A page may show the syntax in a code block: markers there are text.
func TestParseLeavesFencedCodeAlone(t *testing.T) {
	for _, doc := range []string{
		"```markdown\n<!-- generated: rollout-table FILE -->\n```\n\nprose\n",
		"```\n<!-- generated: rollout-table FILE -->\n<!-- /generated -->\n```\n",
		"~~~ is not a fence here\n```\n<!-- /generated -->\n```\n",
	} {
		if blocks, err := Parse(doc); err != nil || len(blocks) != 0 {
			t.Errorf("%q: blocks %+v, error %v: want none", doc, blocks, err)
		}
	}
}

// What the parser refuses, each at its line.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"unclosed", "# P\n\n<!-- generated: index -->\ntext\n", "line 3: block never closed by <!-- /generated -->"},
		{"nested", "<!-- generated: index -->\n<!-- generated: index -->\n<!-- /generated -->\n<!-- /generated -->\n", "line 2: a block opened inside the block of line 1"},
		{"close without open", "text\n<!-- /generated -->\n", "line 2: <!-- /generated --> with no block open"},
		{"comment never ended", "<!-- generated: rollout-rows\na | b | f.json off\n", "line 1: opening comment never ended by -->"},
		{"marker inside the comment", "<!-- generated: rollout-rows\na | b | f.json off\n<!-- /generated -->\n", "line 3: opening comment of line 1 not ended by --> before this marker"},
		{"text after the comment", "<!-- generated: index --> trailing\n<!-- /generated -->\n", "line 1: text after the -->"},
		{"no view", "<!-- generated: -->\n<!-- /generated -->\n", "line 1: no view named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.doc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// Rewrite replaces the bodies and nothing else; an empty output leaves the markers adjacent.
func TestRewriteReplacesOnlyTheBodies(t *testing.T) {
	doc := "a\n<!-- generated: x\nspec\n-->\nold\nold\n<!-- /generated -->\nb\n<!-- generated: y -->\nold\n<!-- /generated -->\nc"
	got, err := Rewrite(doc, func(b Block) (string, error) {
		if b.View == "y" {
			return "", nil
		}
		return "\nnew\n\n", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a\n<!-- generated: x\nspec\n-->\n\nnew\n\n<!-- /generated -->\nb\n<!-- generated: y -->\n<!-- /generated -->\nc"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
