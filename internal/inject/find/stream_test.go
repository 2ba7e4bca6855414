package find

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSplitJoinIsLossless(t *testing.T) {
	for _, in := range []string{
		"", "a: 1\n", "---\na: 1\n---\nb: 2", "a: 1\n---\n# only a comment\n---   \nb: |\n  ---x\n",
		"--- \r\nc: 3\r\n", "----\nnot: a separator\n",
	} {
		if got := string(JoinStream(SplitStream([]byte(in)))); got != in {
			t.Errorf("split/join changed %q into %q", in, got)
		}
	}
	if n := len(SplitStream([]byte("----\nnot: a separator\n"))); n != 1 {
		t.Errorf("\"----\" is not a document marker; got %d documents", n)
	}
}

func TestFixtureRoundTripsByteForByte(t *testing.T) {
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		in, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "pinot-helm", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := JoinStream(SplitStream(in)); string(got) != string(in) {
			t.Errorf("%s did not survive split/join", name)
		}
	}
}
