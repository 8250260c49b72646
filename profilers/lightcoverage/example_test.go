package lightcoverage_test

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// Example shows a Go program exporting its own coverage data: two functions
// of hello.go, one run three times with a line it never reached, one never
// called. The result set goes into an resultset.Memory; a database target
// takes it the same way.
func Example() {
	b := lightcoverage.NewBuilder()
	main := b.AddRoutine(lightcoverage.RoutineInfo{
		Name: "main", Namespace: "main", Module: "example.com/hello", SourceFile: "hello.go",
		SourceLine: 5, CodeType: "x64", Count: 1, LineLevel: true,
	})
	main.AddLine(6, 1)
	main.AddLine(7, 1)
	greet := b.AddRoutine(lightcoverage.RoutineInfo{
		Name: "greet", Namespace: "main", Module: "example.com/hello", SourceFile: "hello.go",
		SourceLine: 10, CodeType: "x64", Count: 3, LineLevel: true,
	})
	greet.AddLine(11, 3)
	greet.AddLine(12, 0) // an error branch never taken
	unused := b.AddRoutine(lightcoverage.RoutineInfo{
		Name: "unused", Namespace: "main", Module: "example.com/hello/util", SourceFile: "util/util.go",
		SourceLine: 3, CodeType: "x64", LineLevel: true,
	})
	unused.AddLine(4, 0)

	var mem resultset.Memory
	res, err := b.Export(context.Background(), &mem, "hello: go test -cover")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("result set", res.InstID, "rows:", res.Rows)
	set := mem.Sets[0]
	mods := set.Tables[lightcoverage.ModulesData]
	for i := range mods.Rows {
		fmt.Printf("module %v: %v%% covered, ran %v\n",
			mods.Value(i, "COL_MODULE_NAME"), mods.Value(i, "COL____COVERED"), mods.Value(i, "COL_MARK"))
	}
	files := set.Tables[lightcoverage.SourceFilesData]
	fmt.Printf("file %v: %.1f%% covered\n", files.Value(0, "COL_FILE_NAME"), files.Value(0, "COL____COVERED"))
	lines := set.Tables[lightcoverage.Lines]
	for i := range lines.Rows {
		fmt.Printf("line %v of routine %v ran %v times\n",
			lines.Value(i, "COL_SOURCE_LINE"), lines.Value(i, "PARENT_ID"), lines.Value(i, "COL_MARK"))
	}
	// Output:
	// result set 1 rows: 24
	// module example.com/hello: 75% covered, ran 1
	// module example.com/hello/util: 0% covered, ran 0
	// file hello.go: 75.0% covered
	// line 6 of routine 0 ran 1 times
	// line 7 of routine 0 ran 1 times
	// line 11 of routine 1 ran 3 times
	// line 12 of routine 1 ran 0 times
	// line 4 of routine 2 ran 0 times
}
