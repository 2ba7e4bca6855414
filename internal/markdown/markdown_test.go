package markdown

import (
	"reflect"
	"testing"
)

const sample = "# Title\n\n## Metrics\n\nSome prose.\n\n" +
	"| metric | meaning |\n|---|---|\n" +
	"| `a_total{x}` | counts `a|b` and c \\| d |\n" +
	"| `b` | see [Limits](#limits) |\n\n" +
	"## Limits\n\n```sh\n# not a heading [x](nowhere.md)\n```\n" +
	"A `[code](span.md)` and [a doc](docs/design.md#the-problem) and ![plot](../p.png \"t\").\n" +
	"## Limits\n<a id=\"custom\"></a>\n### Small brokers (2 vCPUs): the broker's `JIT`\n"

func TestTableKeepsPipesInCodeAndEscapes(t *testing.T) {
	rows, err := Table(sample, "## Metrics")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"`a_total{x}`", "counts `a|b` and c | d"},
		{"`b`", "see [Limits](#limits)"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
	if _, err := Table(sample, "# Title"); err == nil {
		t.Error("a heading with no table of its own gave rows")
	}
	if _, err := Table(sample, "## Nowhere"); err == nil {
		t.Error("a missing heading gave no error")
	}
}

func TestLinksSkipCode(t *testing.T) {
	var got []string
	for _, l := range Links(sample) {
		got = append(got, l.Target)
	}
	want := []string{"#limits", "docs/design.md#the-problem", "../p.png"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("links %q, want %q", got, want)
	}
}

func TestAnchorsAsGitHubMakesThem(t *testing.T) {
	a := Anchors(sample)
	for _, want := range []string{"title", "metrics", "limits", "limits-1", "custom", "small-brokers-2-vcpus-the-brokers-jit"} {
		if !a[want] {
			t.Errorf("anchor %q missing from %v", want, a)
		}
	}
	if a["not-a-heading-xnowheremd"] {
		t.Error("a comment in a code block made an anchor")
	}
}
