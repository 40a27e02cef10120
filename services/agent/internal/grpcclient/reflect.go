package grpcclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// maxReflectedFiles bounds the descriptor files one method lookup may fetch
// (the method's file and everything it imports).
const maxReflectedFiles = 500

// methodCall is a unary method resolved by server reflection, with its
// request encoded once for every call.
type methodCall struct {
	// path is the HTTP/2 path, "/package.Service/Method".
	path string
	// req is the request message in protobuf binary form.
	req rawMessage
	// sent is the size of the request as a gRPC length-prefixed message.
	sent int64
	// opts make the call use rawCodec.
	opts []grpc.CallOption
}

// resolveMethod looks method ("package.Service/Method") up through the
// server reflection service on cc, checks that it is unary, and encodes
// payload (protobuf JSON; "" is the empty message) as its request.
func resolveMethod(ctx context.Context, cc grpc.ClientConnInterface, method, payload string) (*methodCall, error) {
	svc, name, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	md, err := lookupMethod(ctx, cc, svc, name)
	if err != nil {
		return nil, fmt.Errorf("grpc method %s: %w", method, err)
	}
	msg := dynamicpb.NewMessage(md.Input())
	if strings.TrimSpace(payload) != "" {
		if err := protojson.Unmarshal([]byte(payload), msg); err != nil {
			return nil, fmt.Errorf("grpc method %s: payload is not a valid %s in JSON: %w", method, md.Input().FullName(), err)
		}
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("grpc method %s: encode request: %w", method, err)
	}
	return &methodCall{
		path: "/" + svc + "/" + name,
		req:  rawMessage(b),
		sent: int64(grpcMessageHeader + len(b)),
		opts: []grpc.CallOption{grpc.ForceCodecV2(rawCodec{})},
	}, nil
}

// lookupMethod fetches the descriptor of service svc, and the files it
// depends on, by reflection and returns its method name.
func lookupMethod(ctx context.Context, cc grpc.ClientConnInterface, svc, name string) (protoreflect.MethodDescriptor, error) {
	files, err := fetchFiles(ctx, cc, svc)
	if err != nil {
		return nil, err
	}
	reg, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: files})
	if err != nil {
		return nil, fmt.Errorf("descriptors from server reflection: %w", err)
	}
	d, err := reg.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, fmt.Errorf("server reflection has no service %s: %w", svc, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a service", svc)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("service %s has no method %s (it has %s)", svc, name, methodNames(sd))
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		return nil, errors.New("is a streaming method: only unary methods can be called")
	}
	return md, nil
}

func methodNames(sd protoreflect.ServiceDescriptor) string {
	names := make([]string, 0, sd.Methods().Len())
	for i := range sd.Methods().Len() {
		names = append(names, string(sd.Methods().Get(i).Name()))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// fetchFiles asks the server for the file that defines symbol, then for
// every file it imports that the server has not sent yet; a file the server
// does not know is taken from the files compiled into the agent (the
// well-known types), if it is one of them.
func fetchFiles(ctx context.Context, cc grpc.ClientConnInterface, symbol string) ([]*descriptorpb.FileDescriptorProto, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := reflectpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, reflectionError(err)
	}
	defer func() { _ = stream.CloseSend() }()
	have := map[string]*descriptorpb.FileDescriptorProto{}
	err = ask(stream, have, &reflectpb.ServerReflectionRequest{
		MessageRequest: &reflectpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: symbol},
	})
	if err != nil {
		return nil, err
	}
	for missing := missingImports(have); len(missing) > 0; missing = missingImports(have) {
		if len(have) > maxReflectedFiles {
			return nil, fmt.Errorf("server reflection: more than %d descriptor files", maxReflectedFiles)
		}
		for _, name := range missing {
			if err := fetchImport(stream, have, name); err != nil {
				return nil, err
			}
		}
	}
	out := make([]*descriptorpb.FileDescriptorProto, 0, len(have))
	for _, name := range slices.Sorted(maps.Keys(have)) {
		out = append(out, have[name])
	}
	return out, nil
}

// fetchImport adds file name to have: from the server, or else from the
// agent's own registry.
func fetchImport(stream reflectpb.ServerReflection_ServerReflectionInfoClient, have map[string]*descriptorpb.FileDescriptorProto, name string) error {
	err := ask(stream, have, &reflectpb.ServerReflectionRequest{
		MessageRequest: &reflectpb.ServerReflectionRequest_FileByFilename{FileByFilename: name},
	})
	if err == nil && have[name] != nil {
		return nil
	}
	if fd, gerr := protoregistry.GlobalFiles.FindFileByPath(name); gerr == nil {
		have[name] = protodesc.ToFileDescriptorProto(fd)
		return nil
	}
	if err == nil {
		err = fmt.Errorf("server reflection did not send %s", name)
	}
	return err
}

// ask sends one request and adds the descriptor files of the answer to have.
func ask(stream reflectpb.ServerReflection_ServerReflectionInfoClient, have map[string]*descriptorpb.FileDescriptorProto,
	req *reflectpb.ServerReflectionRequest,
) error {
	if err := stream.Send(req); err != nil {
		return reflectionError(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		return reflectionError(err)
	}
	if e := resp.GetErrorResponse(); e != nil {
		return fmt.Errorf("server reflection: %s: %s", codes.Code(uint32(e.GetErrorCode())), e.GetErrorMessage()) // a gRPC code
	}
	fds := resp.GetFileDescriptorResponse()
	if fds == nil {
		return errors.New("server reflection: answer without file descriptors")
	}
	for _, raw := range fds.GetFileDescriptorProto() {
		fd := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(raw, fd); err != nil {
			return fmt.Errorf("server reflection: bad file descriptor: %w", err)
		}
		if _, ok := have[fd.GetName()]; !ok {
			have[fd.GetName()] = fd
		}
	}
	return nil
}

// missingImports lists, sorted, the files imported by those in have that
// are not in have.
func missingImports(have map[string]*descriptorpb.FileDescriptorProto) []string {
	var missing []string
	for _, fd := range have {
		for _, dep := range fd.GetDependency() {
			if _, ok := have[dep]; !ok && !slices.Contains(missing, dep) {
				missing = append(missing, dep)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

// reflectionError explains a failed reflection call; Unimplemented means the
// server has no (v1) reflection service.
func reflectionError(err error) error {
	if status.Code(err) == codes.Unimplemented {
		return fmt.Errorf("the server does not offer server reflection (grpc.reflection.v1): %w", err)
	}
	return fmt.Errorf("server reflection: %w", err)
}

// Method looks method ("/package.Service/Method") up by server reflection
// on cc and checks that it is unary, for callers that build their own
// requests (the scenario executor's gRPC steps).
func Method(ctx context.Context, cc grpc.ClientConnInterface, method string) (protoreflect.MethodDescriptor, error) {
	svc, name, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	md, err := lookupMethod(ctx, cc, svc, name)
	if err != nil {
		return nil, fmt.Errorf("grpc method %s: %w", method, err)
	}
	return md, nil
}
