package precision

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// The recall cards of the section "CPU matrix units", the notebook's last before the recap: added
// after the others so the deck's order stays the notebook's.
var unitsSection = recall.Section{ID: "units", Title: "CPU matrix units", Cards: []recall.Card{
	{ID: "flags", Question: "Which CPU flags give fast bf16 or int8 matrix products, and what does each add?",
		Answer: "avx512_bf16: vector bf16 dot products into f32, at most 2× the f32 rate. avx512_vnni (avx_vnni): vector int8 dot products into int32, four per 32-bit lane. amx_tile with amx_bf16 / amx_int8: a tile-multiply unit per core working on 16-row tiles, an order of magnitude past the vector lanes in the course's model."},
	{ID: "absent", Question: "What does a bf16 matmul get on a CPU without any of these flags?",
		Answer: "Nothing in speed: the values are converted to float32 to multiply, so at best float32's rate (often less, for the conversions); only the bytes halve."},
	{ID: "batch1", Question: "Why can a one-request (batch-1) product miss the matrix units, and what helps it instead?",
		Answer: "A tile multiply wants at least 16 rows of activations; a single row is a matrix-vector product that reads every weight once for 2 operations each — bandwidth-bound. What helps is fewer weight bytes (int8 is a quarter of float32) and a kernel that streams them fast; whether the library has one for that shape is measured, not assumed."},
	{ID: "where", Question: "Where is a CPU the right machine for inference?",
		Answer: "Small or quantized models serving few requests at a time: the weights fit in its caches and DRAM, nothing crosses PCIe, and a batch of one cannot fill a GPU anyway. Large models, large batches and long contexts favor the GPU."},
}}
