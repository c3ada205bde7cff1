// Package datasheet is the course's one table of published hardware facts. For each datasheet GPU
// (GPUs; Lookup finds a row by name) it holds the build — streaming multiprocessors, boost clock,
// FP32 lanes and tensor cores per SM, resident threads per SM —, the roofs (Ceilings: dense peak
// FLOP/s per dtype, HBM bandwidth), the memory and the links (PCIe to the host, NVLink to the other
// GPUs), each with where it comes from. ServerCPU is the source text's illustrative CPU socket,
// whose roofs are arithmetic on its build, not a product's datasheet.
//
// It is a leaf: package devices puts a row's Ceilings on a GPU it opens (and builds a CPU's from
// the CPU's own facts), package gpumodel models a row's GPU, and lessons quote rows. No other
// package types in a GPU's facts.
package datasheet
