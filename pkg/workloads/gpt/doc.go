// Package gpt holds the course's GPT (package workloads' family for lesson 09): the model (GPT:
// Logits, NextToken, Memory), the parts of its training step timed apart (GPTPart) and
// ErrContextTooLong. package train trains it with GoMLX's trainer and Adam.
package gpt
