package datamovement

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Moving data",
	Sections: []recall.Section{
		{ID: "bus", Title: "Host ↔ device bandwidth", Cards: []recall.Card{
			{ID: "curve", Question: "Why does bandwidth rise with transfer size before it levels off?",
				Answer: "Every copy pays a fixed cost (a call, synchronization, setting up the DMA) before bytes move: small copies are all fixed cost, large ones amortize it and approach the link's bandwidth."},
			{ID: "pcie", Question: "How does PCIe compare with a GPU's own memory, by the source's figures?",
				Answer: "The source says roughly 16–32 GB/s over PCIe (the nominal rates of Gen3 and Gen4 x16; H100/H200 hosts use Gen5 x16, about 64 GB/s per direction) against 900+ GB/s of on-device memory (an H100's HBM3: 3.35 TB/s, datasheet): tens of times slower either way, so data should cross it as rarely as possible."},
			{ID: "cpu", Question: "What does a host→device copy mean on xla:cpu?",
				Answer: "The 'device' memory is host RAM, so it is a memcpy inside RAM (plus PJRT's bookkeeping), not a trip over a bus: its curve shows fixed costs and RAM bandwidth, not PCIe."},
		}},
		{ID: "resident", Title: "Keep the model and the batch on the device", Cards: []recall.Card{
			{ID: "why", Question: "Why move the model to the device once and keep it there?",
				Answer: "A step's compute on a GPU can take less time than pushing the parameters over PCIe: re-uploading them every step makes the bus, not the GPU, set the step time. Only the batch (and rarely a scalar) should cross per step."},
			{ID: "pinned", Question: "What do pinned memory and non_blocking=True buy?",
				Answer: "Pinned (page-locked) host memory lets the GPU's copy engine read the batch directly, without the driver's staging copy; DataLoader(pin_memory=True) makes that host-to-host copy into pinned memory and never touches the GPU. non_blocking=True queues the upload and frees the host. Overlapping the copy with compute needs a second CUDA stream and an event: code you or a library write."},
		}},
		{ID: "sync", Title: "Hidden sync points", Cards: []recall.Card{
			{ID: "item", Question: "Why is `loss.item()` (or `.cpu()`, or printing a tensor) every step a problem on a GPU?",
				Answer: "It forces the host to wait until the device has finished every queued kernel and copied the value back: the launch queue empties and the GPU idles while the host logs and launches the next step. Read it every k steps, or accumulate on the device."},
			{ID: "here", Question: "What does a loss read cost on xla:cpu here, and why is it smaller than on a GPU?",
				Answer: "A small copy plus the loss of overlap between the host's own work and the step; the 'device' shares the host's cores and go-xla's execute already waits for completion, so there is no deep GPU queue to drain."},
		}},
		{ID: "timing", Title: "Timing without waiting", Cards: []recall.Card{
			{ID: "lie", Question: "Why does stopping the clock right after a GPU call give impossible FLOP/s?",
				Answer: "GPU calls are asynchronous: they return once the kernel is queued (microseconds), long before it has run. The clock measured the launch, so FLOPs ÷ launch time exceeds any roof. (On xla:cpu the course emulates that asynchrony with a goroutine launch queue; the impossible figure there is labeled emulated.)"},
			{ID: "fix", Question: "How do you time device work correctly?",
				Answer: "Warm up first, then wait for completion before stopping the clock (torch.cuda.synchronize(), an event, or reading a result), and report a median of several runs with their spread."},
		}},
	},
}
