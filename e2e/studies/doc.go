// Package studies keeps the repository's Markdown true to the studies' JSON: a page's figures
// are generated blocks the report tools render, and a test fails when a committed block differs
// from what its JSON renders today (go test ./e2e/studies -run TestDocs -update rewrites them).
//
// A generated block, in any Markdown file of the repository:
//
//	<!-- generated: VIEW ARG...
//	spec line
//	-->
//	...the rendered output: the tool's...
//	<!-- /generated -->
//
// The opening comment may be one line; everything between it and the closing marker is
// rewritten, the rest of the page is hand-written. ARG paths are from the repository root; the
// links a view writes are relative to the page that holds the block.
//
// The views (FILE a study's JSON; arms=a,b keeps only those arms, where a view takes it):
//
//   - rollout-table FILE [arms=]: the per-arm table of a rollout study (results/rollout)
//   - rollout-targets FILE: every arm against the targets
//   - rollout-method FILE: how the figures were made
//   - rollout-platform FILE: the test bed and each group's CPU ("" before the test bed)
//   - rollout-cost FILE [arms=]: what each warmup cost the fleet ("" where not measured)
//   - rollout-events FILE [arms=]: every event's figures
//   - rollout-restarts FILE [arms=], rollout-java FILE [arms=], rollout-notes FILE: the
//     report's pod restarts, Java client and notes sections ("" where the study has none)
//   - rollout-pictures FILE [arms=]: the committed timelines, <name>-<arm>.png beside FILE
//   - coldstart-table, coldstart-jvm, coldstart-targets, coldstart-method, coldstart-picture
//     FILE: a cold-start study's (results/coldstart) figures, broker JVM, targets, command and
//     machine, and plot
//   - jdk25-table FILE: a JSON of results/jdk25 as its report shows it: a cold-start study's
//     figures with its broker JVM's, or a steady study's tables
//   - steady-table FILE: a steady study's (steady-*.json) tables
//   - rollout-rows [pages=DIR], a spec line per row `label | values | FILE ARM`: a table
//     "| your broker | set | measured on the test bed |" whose third cell is FILE's arm ARM
//     (rollout.ArmRow) linked to the study page holding FILE, or to its report
//   - index [pages=DIR]: every study page of DIR (docs/studies), newest first
//
// A study page (docs/studies/*.md but README.md, the index's) begins with `# <title>`, has a
// `**Result:** <the result in a phrase>.` line, and a `**When:** YYYY-MM-DD ...` line when no
// block of it names a study JSON with a start.
package studies
