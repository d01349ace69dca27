package signature_test

import (
	"fmt"

	"github.com/capsulehq/capsule/pipeline/signature"
)

func ExampleFromTest() {
	sig, err := signature.FromTest(`assert remove_Occ("hello","l") == "heo"`, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(sig)

	sig, _ = signature.FromTest(`assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))`, "")
	fmt.Println(sig)
	for _, p := range sig.Params {
		fmt.Println(p.Name, p.Type.Name(), p.Type.Hint())
	}
	// Output:
	// def remove_Occ(arg_str_1: str, arg_str_2: str) -> str:
	// def similar_elements(arg_tuple_int_1: tuple[int, ...], arg_tuple_int_2: tuple[int, ...]):
	// arg_tuple_int_1 tuple_int tuple[int, ...]
	// arg_tuple_int_2 tuple_int tuple[int, ...]
}

func ExampleEval() {
	v, err := signature.Eval(`[(1, "a"), (2, "b")]`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v %s\n", v, signature.TypeOf(v).Hint())
	// Output: [[1 a] [2 b]] list[tuple[int, str]]
}
