// Package regime holds the course's one frame: a step is compute-bound, memory-bandwidth-bound or
// overhead-bound, and the rule that tells them apart — its TIME BUDGET, as the JAX scaling book and
// Horace He's "Making Deep Learning Go Brrrr" put it. Two budgets from measured ceilings:
//
//	T_compute = FLOPs ÷ compute ceiling (FLOP/s)      T_memory = bytes ÷ bandwidth ceiling (byte/s)
//
// set against the measured time T. The larger budget names the regime when it explains at least half
// of T; when neither does, the time goes to fixed costs (launches, dispatch, synchronization, the
// input pipeline): overhead-bound. A budget well over T names nothing: the ceiling behind it is below
// what the step reached, and must be measured again.
//
// A flat time when the work doubles is NOT the test: below the ridge batch a weight-dominated matmul
// reads the same weights at batch 8 and 16, so its time stays flat because the bytes did, and it is
// memory-bandwidth-bound. Lesson 01 introduces the rule with a live experiment (double the FLOPs at
// fixed bytes, then the bytes at fixed FLOPs); every lesson's "Which regime?" recap applies it.
package regime
