package workloads

import "math"

// refResult is what refTrain computes, every array flattened in state order.
type refResult struct {
	loss                float64   // loss of the last step
	params, delta, m, v []float64 // final parameters, their total change, Adam's moments
}

// refTrain runs `steps` training steps of w in float64 from the given initial parameters.
func refTrain(w MLP, init [][]float32, x, y []float64, lr float64, steps int) refResult {
	d := w.Dims()
	L := len(d) - 1
	params := make([][]float64, len(init))
	for k, v := range init {
		params[k] = make([]float64, len(v))
		for j, f := range v {
			params[k][j] = float64(f)
		}
	}
	ms, vs := make([][]float64, len(params)), make([][]float64, len(params))
	for k := range params {
		ms[k], vs[k] = make([]float64, len(params[k])), make([]float64, len(params[k]))
	}
	B := w.Batch
	rt := func(v float64) float64 { return Round(v, w.Type) }
	var loss float64
	for s := 1; s <= steps; s++ {
		hs, wc := refForward(w, params, x)
		out := hs[L]
		loss = 0
		dz := make([]float64, len(out))
		for i := range out {
			e := rt(out[i] - y[i])
			loss += e * e
			dz[i] = rt(e / float64(B))
		}
		loss /= 2 * float64(B)
		// Backward.
		grads := make([][]float64, len(params))
		for l := L - 1; l >= 0; l-- {
			in, n, m := hs[l], d[l], d[l+1]
			gW := make([]float64, n*m)
			gb := make([]float64, m)
			for r := 0; r < B; r++ {
				for j := 0; j < m; j++ {
					g := dz[r*m+j]
					gb[j] += g
					for i := 0; i < n; i++ {
						gW[i*m+j] += in[r*n+i] * g
					}
				}
			}
			grads[2*l], grads[2*l+1] = roundAll(gW, w.Type), roundAll(gb, w.Type)
			if l > 0 {
				W := wc[l]
				dh := make([]float64, B*n)
				for r := 0; r < B; r++ {
					for i := 0; i < n; i++ {
						var acc float64
						for j := 0; j < m; j++ {
							acc += dz[r*m+j] * W[i*m+j]
						}
						h := in[r*n+i] // tanh output of the previous layer
						dh[r*n+i] = rt(rt(acc) * rt(1-rt(h*h)))
					}
				}
				dz = dh
			}
		}
		// Update.
		for k := range params {
			for j := range params[k] {
				g := grads[k][j]
				switch w.EffectiveOptimizer() {
				case SGD:
					params[k][j] -= lr * g
				case Adam:
					ms[k][j] = AdamBeta1*ms[k][j] + (1-AdamBeta1)*g
					vs[k][j] = AdamBeta2*vs[k][j] + (1-AdamBeta2)*g*g
					mhat := ms[k][j] / (1 - math.Pow(AdamBeta1, float64(s)))
					vhat := vs[k][j] / (1 - math.Pow(AdamBeta2, float64(s)))
					params[k][j] -= lr * mhat / (math.Sqrt(vhat) + AdamEpsilon)
				}
			}
		}
	}
	r := refResult{loss: loss}
	for k, v := range init {
		for j := range v {
			r.params = append(r.params, params[k][j])
			r.delta = append(r.delta, params[k][j]-float64(v[j]))
		}
		r.m, r.v = append(r.m, ms[k]...), append(r.v, vs[k]...)
	}
	return r
}

// refForward is w's forward pass in float64 from parameters params (weights and biases in layer
// order): hs[l] is the input to layer l (hs[0] = x, hs[len(Dims)-1] the output) and wc[l] the
// weights layer l multiplied by. Mixed precision: like the device, it uses 16-bit copies of the
// weights and rounds every intermediate the device keeps in Type (a no-op for float32 and float64),
// so what is left to compare is the arithmetic, not the rounding model.
func refForward(w MLP, params [][]float64, x []float64) (hs, wc [][]float64) {
	d := w.Dims()
	L, B := len(d)-1, w.Batch
	rt := func(v float64) float64 { return Round(v, w.Type) }
	hs = [][]float64{x}
	wc = make([][]float64, L)
	for l := 0; l < L; l++ {
		wc[l] = roundAll(params[2*l], w.Type)
		b := roundAll(params[2*l+1], w.Type)
		z := refMatMul(hs[l], wc[l], B, d[l], d[l+1])
		for r := 0; r < B; r++ {
			for j := 0; j < d[l+1]; j++ {
				v := rt(rt(z[r*d[l+1]+j]) + b[j])
				if l < L-1 {
					v = rt(math.Tanh(v))
				}
				z[r*d[l+1]+j] = v
			}
		}
		hs = append(hs, z)
	}
	return hs, wc
}
