package rollout_test

import (
	"fmt"
	"go/format"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeHeading is the README section whose program is Example_readme.
const readmeHeading = "## The story in a few lines of Go"

// TestReadmeProgram keeps README.md honest: the Go program it shows under
// readmeHeading must be Example_readme (readme_example_test.go) with
// "package main" and "func main()" in place of the test package and the
// Example's name, and the text block after it must be the Example's
// // Output:. The Example is compiled and run by go test, so the README's
// program compiles and prints what the README says.
func TestReadmeProgram(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("readme_example_test.go")
	require.NoError(t, err)

	wantProgram, wantOutput, err := exampleAsProgram(string(example))
	require.NoError(t, err, "readme_example_test.go")
	program, output, err := readmeBlocks(string(readme))
	require.NoError(t, err, "README.md")

	assert.Equal(t, wantProgram, program,
		"README.md's program must be readme_example_test.go's Example_readme as package main: copy it over")
	assert.Equal(t, wantOutput, output,
		"README.md's output block must be Example_readme's // Output:")
	formatted, err := format.Source([]byte(program))
	require.NoError(t, err, "README.md's program must parse")
	assert.Equal(t, string(formatted), program, "README.md's program must be gofmt'ed")
}

// exampleAsProgram turns the source of readme_example_test.go into the
// program the README shows, and the Example's // Output: into plain lines.
func exampleAsProgram(src string) (program, output string, err error) {
	imports, err := between(src, "\nimport (\n", "\n)\n")
	if err != nil {
		return "", "", err
	}
	body, err := between(src, "\nfunc Example_readme() {\n", "\t// Output:\n")
	if err != nil {
		return "", "", err
	}
	comment, err := between(src, "\t// Output:\n", "}\n")
	if err != nil {
		return "", "", err
	}
	var out strings.Builder
	for line := range strings.Lines(comment) {
		text, ok := strings.CutPrefix(line, "\t//")
		if !ok {
			return "", "", fmt.Errorf("output line %q: want a // comment", line)
		}
		out.WriteString(strings.TrimPrefix(text, " "))
	}
	program = "package main\n\nimport (\n" + imports + "\n)\n\nfunc main() {\n" + body + "}\n"
	return program, out.String(), nil
}

// readmeBlocks returns the first ```go block after readmeHeading and the
// first ```text block after that one.
func readmeBlocks(readme string) (program, output string, err error) {
	_, section, ok := strings.Cut(readme, "\n"+readmeHeading+"\n")
	if !ok {
		return "", "", fmt.Errorf("no heading %q", readmeHeading)
	}
	program, err = between(section, "\n```go\n", "\n```\n")
	if err != nil {
		return "", "", err
	}
	_, rest, _ := strings.Cut(section, program)
	output, err = between(rest, "\n```text\n", "\n```\n")
	if err != nil {
		return "", "", err
	}
	return program + "\n", output + "\n", nil
}

// between returns the text of s after the first start and before the next
// end.
func between(s, start, end string) (string, error) {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return "", fmt.Errorf("found no %q", start)
	}
	inner, _, ok := strings.Cut(after, end)
	if !ok {
		return "", fmt.Errorf("found no %q after %q", end, start)
	}
	return inner, nil
}
