package check

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/kustomize/api/resource"
)

var typed = func() serializer.CodecFactory {
	s := k8sruntime.NewScheme()
	if err := clientscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict)
}()

// DecodeStrict decodes an object into its typed Go struct, failing on unknown or duplicate fields.
func DecodeStrict(r *resource.Resource) (k8sruntime.Object, error) {
	y, err := r.AsYAML()
	if err != nil {
		return nil, err
	}
	obj, _, err := typed.UniversalDeserializer().Decode(y, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.GetKind(), r.GetName(), err)
	}
	return obj, nil
}
