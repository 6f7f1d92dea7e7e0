package check

import (
	"time"

	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// LoadSchedulerConfig decodes a KubeSchedulerConfiguration the way kube-scheduler's --config
// does (strict: unknown fields are errors; defaults applied) and validates it with
// kube-scheduler's own validation.
func LoadSchedulerConfig(data []byte) (*config.KubeSchedulerConfiguration, error) {
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("got %v, want KubeSchedulerConfiguration", gvk)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func metav1Duration(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
