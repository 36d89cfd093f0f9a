from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TraceLite(_message.Message):
    __slots__ = ("tfdbg_context_id", "op_name", "output_slot", "tensor_debug_mode", "tensor_proto", "device_name")
    TFDBG_CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SLOT_FIELD_NUMBER: _ClassVar[int]
    TENSOR_DEBUG_MODE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_PROTO_FIELD_NUMBER: _ClassVar[int]
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    tfdbg_context_id: bytes
    op_name: bytes
    output_slot: int
    tensor_debug_mode: int
    tensor_proto: bytes
    device_name: bytes
    def __init__(self, tfdbg_context_id: _Optional[bytes] = ..., op_name: _Optional[bytes] = ..., output_slot: _Optional[int] = ..., tensor_debug_mode: _Optional[int] = ..., tensor_proto: _Optional[bytes] = ..., device_name: _Optional[bytes] = ...) -> None: ...

class DebugEventLite(_message.Message):
    __slots__ = ("wall_time", "graph_execution_trace")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    GRAPH_EXECUTION_TRACE_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    graph_execution_trace: TraceLite
    def __init__(self, wall_time: _Optional[float] = ..., graph_execution_trace: _Optional[_Union[TraceLite, _Mapping]] = ...) -> None: ...

class ExecutionLite(_message.Message):
    __slots__ = ("op_type", "num_outputs", "graph_id", "output_tensor_ids", "tensor_debug_mode", "tensor_protos")
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    NUM_OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ID_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TENSOR_IDS_FIELD_NUMBER: _ClassVar[int]
    TENSOR_DEBUG_MODE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_PROTOS_FIELD_NUMBER: _ClassVar[int]
    op_type: bytes
    num_outputs: int
    graph_id: bytes
    output_tensor_ids: _containers.RepeatedScalarFieldContainer[int]
    tensor_debug_mode: int
    tensor_protos: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, op_type: _Optional[bytes] = ..., num_outputs: _Optional[int] = ..., graph_id: _Optional[bytes] = ..., output_tensor_ids: _Optional[_Iterable[int]] = ..., tensor_debug_mode: _Optional[int] = ..., tensor_protos: _Optional[_Iterable[bytes]] = ...) -> None: ...

class ExecutionEventLite(_message.Message):
    __slots__ = ("wall_time", "execution")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    execution: ExecutionLite
    def __init__(self, wall_time: _Optional[float] = ..., execution: _Optional[_Union[ExecutionLite, _Mapping]] = ...) -> None: ...

class SourceFileHead(_message.Message):
    __slots__ = ("file_path", "host_name")
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    HOST_NAME_FIELD_NUMBER: _ClassVar[int]
    file_path: str
    host_name: str
    def __init__(self, file_path: _Optional[str] = ..., host_name: _Optional[str] = ...) -> None: ...

class SourceEventHead(_message.Message):
    __slots__ = ("source_file",)
    SOURCE_FILE_FIELD_NUMBER: _ClassVar[int]
    source_file: SourceFileHead
    def __init__(self, source_file: _Optional[_Union[SourceFileHead, _Mapping]] = ...) -> None: ...
