"""Write reader/diagnosis/optable.json: how each floating TensorFlow op can make NaN/∞.

    .venv/bin/python tools/make_optable.py [--check | --floating]

The diagnosis (`reader.diagnosis.optable`) reads the table, never TensorFlow: for an origin
op without a rule of its own it says what the op's family makes likely (a singular matrix,
a pole, the edge of a domain, an overflow, an empty reduction, an impossible alignment)
and what the recorded input health cannot tell.

Which ops: every op of the installed TensorFlow's registry (`tf.raw_ops`, op defs from
`op_def_registry`) with an input or output that may be half, bfloat16, float or double.
Each is put, deliberately, either in a family below (it can make NaN/∞ from finite inputs)
or in the cannot-list (it moves, picks, compares, bounds or samples values, stores or
sends them, or computes a function that is finite wherever its inputs are: a NaN/∞ in
its output came in through an input or from data it reads). The rules are by name — the
op defs do not say what a kernel computes — so every op must match one; `--check` fails
when the registry has ops the table does not cover (a new TensorFlow); `--floating` prints
the registry's floating ops as JSON (tests/diagnosis/test_optable.py).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from optable_families import FAMILIES  # tools/ is on sys.path when run as a script

OUT = Path(__file__).resolve().parents[1] / "reader" / "diagnosis" / "optable.json"

# op → family. Checked first, then the patterns below, then the cannot rules.
EXPLICIT: dict[str, str] = {}
for _fam, _ops in {
    "domain": "Log Log1p Sqrt Acos Asin Acosh Atanh Pow Ndtri Erfinv Betainc Igamma Igammac "
              "IgammaGradA Xlogy Xlog1py Spence ParameterizedTruncatedNormal "
              "StatelessParameterizedTruncatedNormal RandomGammaGrad "
              "BatchNormWithGlobalNormalization "
              "Mfcc Rsqrt",
    "pole": "Reciprocal Inv Lgamma Digamma Polygamma Zeta Tan BesselY0 BesselY1 BesselK0 BesselK1 "
            "BesselK0e BesselK1e Expint LRN",
    "division": "RealDiv Div Xdivy FloorDiv TruncateDiv FloorMod TruncateMod Mod ScatterDiv "
                "ResourceScatterDiv ScatterNdDiv",
    "singular": "LogMatrixDeterminant MatrixTriangularSolve BatchMatrixTriangularSolve "
                "BandedTriangularSolve MatrixInverse BatchMatrixInverse MatrixSolve "
                "BatchMatrixSolve MatrixSolveLs BatchMatrixSolveLs TridiagonalSolve "
                "MatrixLogarithm MatrixSquareRoot Lu CholeskyGrad BatchCholeskyGrad "
                "SparseMatrixSparseCholesky",
    "not_positive_definite": "Cholesky BatchCholesky",
    "empty": "Mean Max Min FusedBatchNorm FusedBatchNormV2 FusedBatchNormV3 "
             "_FusedBatchNormEx",
    "alignment": "CTCLoss CTCLossV2",
    "overflow": "Add AddV2 AddN AccumulateNV2 Sub Mul MulNoNan DivNoNan Square SquaredDifference "
                "MatMul BatchMatMul BatchMatMulV2 BatchMatMulV3 Einsum Sum Prod Cumsum Cumprod "
                "Exp Expm1 Cosh Sinh Softplus BesselI0 BesselI1 BiasAdd BiasAddV1 L2Loss "
                "EuclideanNorm Cast MatrixDeterminant BatchMatrixDeterminant MatrixExponential "
                "SegmentSum SegmentSumV2 SegmentProd SegmentProdV2 UnsortedSegmentSum "
                "UnsortedSegmentProd SparseMatMul SparseTensorDenseMatMul SparseMatrixMatMul "
                "SparseMatrixAdd SparseMatrixMul SparseAdd SparseDenseCwiseAdd "
                "SparseDenseCwiseMul SparseReduceSum SparseReduceSumSparse "
                "ScatterAdd ScatterMul ScatterSub ScatterNdAdd ScatterNdSub "
                "ScatterNdNonAliasingAdd "
                "ResourceScatterAdd ResourceScatterMul ResourceScatterSub ResourceScatterNdAdd "
                "ResourceScatterNdSub TensorScatterAdd TensorScatterSub InplaceAdd InplaceSub "
                "CrossReplicaSum NcclAllReduce NcclReduce Cross ComplexAbs Complex "
                "AudioSpectrogram Dilation2D Conv Qr SelfAdjointEig SelfAdjointEigV2 Svd "
                "BatchSelfAdjointEig BatchSelfAdjointEigV2 BatchSvd Eig LinSpace "
                "AssignAdd AssignSub AssignAddVariableOp AssignSubVariableOp "
                "AdjustContrast AdjustContrastv2 Dequantize SparseSegmentSum SparseSegmentMean "
                "SparseSegmentSqrtN SparseSegmentSumWithNumSegments "
                "SparseSegmentMeanWithNumSegments "
                "SparseSegmentSqrtNWithNumSegments SparseSegmentSumGrad SparseSegmentSumGradV2 "
                "SparseSegmentMeanGrad SparseSegmentMeanGradV2 SparseSegmentSqrtNGrad "
                "SparseSegmentSqrtNGradV2 UnsortedSegmentSumV2 SegmentMean "
                "BlockLSTM BlockLSTMV2 LSTMBlockCell GRUBlockCell CudnnRNN CudnnRNNV2 CudnnRNNV3 "
                "SdcaOptimizer SdcaOptimizerV2 SdcaShrinkL1 "
                "BoostedTreesCalculateBestGainsPerFeature "
                "BoostedTreesCalculateBestFeatureSplit BoostedTreesCalculateBestFeatureSplitV2 "
                "BoostedTreesSparseCalculateBestFeatureSplit BoostedTreesCenterBias "
                "BoostedTreesAggregateStats BoostedTreesSparseAggregateStats "
                "BoostedTreesMakeStatsSummary "
                "BoostedTreesPredict BoostedTreesTrainingPredict BoostedTreesUpdateEnsemble "
                "BoostedTreesUpdateEnsembleV2 FusedPadConv2D FusedResizeAndPadConv2D "
                "QuantizedMatMulWithBiasAndDequantize CollectiveReduce CollectiveReduceV2 "
                "CollectiveReduceV3 CollectiveReduceScatterV2 AllReduce XlaReduce "
                "XlaReduceScatter XlaDot XlaDotV2 XlaConv XlaConvV2 XlaEinsum "
                "SparseAccumulatorApplyGradient AccumulatorApplyGradient "
                "ResourceAccumulatorApplyGradient AccumulatorTakeGradient "
                "ResourceAccumulatorTakeGradient SparseAccumulatorTakeGradient "
                "KMC2ChainInitialization KmeansPlusPlusInitialization NearestNeighbors "
                "CumulativeLogsumexp ScaleAndTranslate ScaleAndTranslateGrad "
                "HistogramFixedWidth IsotonicRegression",
    "parse": "StringToNumber DecodeCSV DecodeRaw DecodePaddedRaw DecodeProtoV2 ParseExample "
             "ParseExampleV2 ParseSingleExample ParseSequenceExample ParseSequenceExampleV2 "
             "ParseSingleSequenceExample ParseTensor Bitcast DecodeWav DecodeJSONExample "
             "ParseExampleDataset ParseExampleDatasetV2 ExperimentalParseExampleDataset "
             "CSVDataset CSVDatasetV2 ExperimentalCSVDataset",
    "quantization": "FakeQuantWithMinMaxArgs FakeQuantWithMinMaxVars "
    "FakeQuantWithMinMaxVarsPerChannel "
                    "QuantizeAndDequantize QuantizeAndDequantizeV2 QuantizeAndDequantizeV3 "
                    "QuantizeAndDequantizeV4 QuantizeV2 RequantizationRange "
                    "RequantizationRangePerChannel QuantizeDownAndShrinkRange Requantize "
                    "RequantizePerChannel",
}.items():
    for _op in _ops.split():
        EXPLICIT[_op] = _fam

for _op in ("SparseDenseCwiseDiv", ):
    EXPLICIT[_op] = "division"
for _op in "TileGrad TridiagonalMatMul BiasAddGrad MirrorPadGrad".split():
    EXPLICIT[_op] = "overflow"
for _op in "CropAndResizeGradBoxes CropAndResizeGradImage Dilation2DBackpropFilter " \
           "Dilation2DBackpropInput".split():
    EXPLICIT[_op] = "gradient"
# cannot, although a pattern below would say otherwise: gradients that only mask, route or
# scale by a factor of magnitude ≤ 1 (relu's, max-pool's, tanh's, sigmoid's, softsign's)
for _op in ("ReluGrad Relu6Grad LeakyReluGrad TanhGrad SigmoidGrad SoftsignGrad EluGrad "
            "SeluGrad SobolSample StatelessMultinomial StatelessSampleDistortedBoundingBox "
            "StatelessShuffle StringFormat TensorStridedSliceUpdate Timestamp ToBool "
            "WindowOp TensorScatterMax TensorScatterMin").split():
    EXPLICIT[_op] = ""

# name patterns → family, for the large regular groups
PATTERNS: list[tuple[str, str]] = [
    (r"^(Resource)?(Sparse)?Apply", "optimizer"),
    (r"^(Load|Retrieve)TPUEmbedding.*Parameters", "optimizer"),
    (r"^FakeQuant.*Gradient$", "quantization"),
    (r"^QuantizeAndDequantize.*Grad$", "quantization"),
    (r"^Quantized", "quantization"),
    (r"^Uniform(Quantize|Dequantize|Requantize|Quantized)", "quantization"),
    (r"^(Sqrt|Rsqrt|Reciprocal|Inv|Tanh|Sigmoid|Softplus|Softsign|Elu|Selu|Lrn|LRN|Cholesky|"
     r"FusedBatchNorm|FusedBatchNormGrad|BatchNormWithGlobalNormalization|AvgPool|AvgPool3D|"
     r"BiasAdd|LeakyRelu|Conv2DBackprop|Conv3DBackprop|DepthwiseConv2dNativeBackprop|"
     r"Dilation2DBackprop|BlockLSTM|LSTMBlockCell|GRUBlockCell|CudnnRNNBackprop|"
     r"ResizeBilinear|ResizeBicubic|CropAndResizeGrad|FractionalAvgPool|ScaleAndTranslate|"
     r"MirrorPad|IgammaGrad|RandomGamma|Rsqrt|SparseSegment|Relu6|Relu|Unbatch|"
     r"LRN).*Grad", "gradient"),
    (r"^(Conv|Conv2D|Conv3D|DepthwiseConv2dNative)(Backprop.*)?(V2)?$", "overflow"),
    (r"^(I?R?FFT|I?RFFT)(2D|3D|ND)?$", "overflow"),
    (r"^(Batch)?(I?FFT)(2D|3D|ND)?$", "overflow"),
    (r"^(AvgPool|AvgPool3D|FractionalAvgPool)$", "overflow"),
    (r"^CudnnRNN", "overflow"),
]

# ops that cannot make NaN/∞ from finite inputs, by name pattern (see the docstring)
CANNOT_PATTERNS = [
    # moving, picking, reshaping, control flow, identity-like
    r"^(Identity|IdentityN|Reshape|Transpose|ConjugateTranspose|Concat|ConcatV2|ConcatOffset|"
    r"Pack|Unpack|Split|SplitV|Squeeze|ExpandDims|StridedSlice.*|Slice|Gather.*|ResourceGather.*|"
    r"Tile|BroadcastTo|Pad|PadV2|MirrorPad|Reverse.*|Select|SelectV2|Roll|DepthToSpace|"
    r"SpaceToDepth|SpaceToBatch.*|BatchToSpace.*|Diag|DiagPart|MatrixDiag.*|MatrixSetDiag.*|"
    r"MatrixBandPart|BatchMatrix(Diag|DiagPart|SetDiag|BandPart)|OneHot|Fill|ZerosLike|"
    r"OnesLike|Empty|Snapshot|Copy|CopyHost|DeepCopy|PreventGradient|StopGradient|"
    r"EnsureShape|CheckNumerics.*|GuaranteeConst|Enter|Exit|Merge|Switch|NextIteration|"
    r"RefEnter|RefExit|RefMerge|RefSwitch|RefNextIteration|RefSelect|RefIdentity|If|"
    r"StatelessIf|While|StatelessWhile|Case|StatelessCase|For|PartitionedCall|"
    r"StatefulPartitionedCall|RemoteCall|SymbolicGradient|MapDefun|DynamicPartition|"
    r"DynamicStitch|ParallelDynamicStitch|ParallelConcat|InplaceUpdate|TensorScatterUpdate|"
    r"ScatterUpdate|ScatterNdUpdate|ResourceScatterUpdate|ResourceScatterNdUpdate|"
    r"ScatterNd|ScatterMax|ScatterMin|ScatterNdMax|ScatterNdMin|ResourceScatterMax|"
    r"ResourceScatterMin|ResourceScatterNdMax|ResourceScatterNdMin|"
    r"ResourceStridedSliceAssign|ExtractImagePatches|ExtractVolumePatches|ExtractGlimpse.*|"
    r"ReverseSequence|Bucketize|ListDiff|Unique.*|Where|Shape|ShapeN|Size|Rank|"
    r"TopK|TopKV2|NthElement|ApproxTopK|LowerBound|UpperBound|SearchSorted|Sort|"
    r"Bincount|DenseBincount|.*Bincount|.*CountSparseOutput|EditDistance|Fingerprint)$",
    # comparisons, rounding, bounding, sign, finite functions of finite inputs
    r"^(Equal|NotEqual|Less|LessEqual|Greater|GreaterEqual|ApproximateEqual|IsFinite|IsInf|"
    r"IsNan|InTopK|InTopKV2|ArgMax|ArgMin|Abs|Neg|Sign|Round|Rint|Floor|Ceil|ClipByValue|"
    r"Maximum|Minimum|NextAfter|Relu|Relu6|LeakyRelu|Elu|Selu|Softsign|Sigmoid|Tanh|Sin|Cos|"
    r"Asinh|Atan|Atan2|Erf|Erfc|Dawsn|FresnelCos|FresnelSin|BesselI0e|BesselI1e|BesselJ0|"
    r"BesselJ1|Softmax|LogSoftmax|SoftmaxCrossEntropyWithLogits|"
    r"SparseSoftmaxCrossEntropyWithLogits|SigmoidCrossEntropyWithLogits|MaxPool.*|"
    r"FractionalMaxPool.*|SegmentMax.*|SegmentMin.*|UnsortedSegmentMax|UnsortedSegmentMin|"
    r"SparseReduceMax.*|SparseSegmentMax.*|Real|Imag|Angle|Conj|Range|RangeDataset|"
    r"ReluGrad|Relu6Grad|LeakyReluGrad|MaxPool.*Grad.*|FractionalMaxPoolGrad|TanhGrad|"
    r"SigmoidGrad|SoftsignGrad|EluGrad|SeluGrad|BiasAddGrad|MirrorPadGrad|"
    r"ResizeNearestNeighbor.*|ResizeBilinear|ResizeBicubic|ResizeArea|CropAndResize|"
    r"ImageProjectiveTransform.*|RGBToHSV|HSVToRGB|AdjustHue|AdjustSaturation|"
    r"DrawBoundingBoxes.*|NonMaxSuppression.*|CombinedNonMaxSuppression|"
    r"GenerateBoundingBoxProposals|SampleDistortedBoundingBox.*|"
    r"CTCGreedyDecoder|CTCBeamSearchDecoder|EncodeWav|DecodeImage|Decode(Jpeg|Png|Gif|Bmp)|"
    r"AsString|EncodeProto|SerializeTensor|SerializeSparse|SerializeManySparse|"
    r"DeserializeSparse|DeserializeManySparse)$",
    # sampling from finite parameters
    r"^(Stateless|Stateful)?(Random|Truncated|StandardNormal|Uniform).*|^Multinomial$|^.*CandidateSampler$|"
    r"^RandomShuffle.*|^RandomCrop$|^NonDeterministicInts$|^ComputeAccidentalHits$",
    # storing, sending, summaries, debugging, queues, tables, tensor lists and arrays
    r"^(Assign|AssignVariableOp|AssignVariableXlaConcatND|ReadVariableOp|ReadVariableXlaSplitND|"
    r"VarHandleOp|Variable|VariableV2|TemporaryVariable|DestroyTemporaryVariable|"
    r"IsVariableInitialized|ResourceScatterNdUpdate|Save|SaveV2|SaveSlices|Restore|RestoreV2|"
    r"RestoreSlice|Const|ImmutableConst|HostConst|Placeholder|PlaceholderV2|"
    r"PlaceholderWithDefault|FakeParam|Send|Recv|_Send|_Recv|_Arg|_Retval|Print|PrintV2|"
    r"Assert|.*Summary.*|Debug.*|_Debug.*|CheckPinned|EagerPyFunc|PyFunc|PyFuncStateless|"
    r"GetSessionHandle.*|GetSessionTensor|LoadAndRemapMatrix|Batch|BatchFunction|Unbatch.*)$",
    r"^(Queue|Barrier|Stage|Unstage|Map|OrderedMap|Tensor(Array|List|Map)|Stack|Lookup|"
    r"MutableHashTable|MutableDenseHashTable|AnonymousMutable|InitializeTable|Iterator|"
    r"MultiDeviceIterator|Optional|Outfeed|Infeed|Collective|Nccl|AllToAll|"
    r"CollectivePermute|Xla|_Xla|TPU|_TPU|Tpu|Enqueue|DynamicEnqueue|Prelinearize|"
    r"Sparse(Tensor|Fill|Reorder|Reshape|Slice|Split|Concat|Cross|ToDense|Conditional|"
    r"Reduce|Segment|Add|Softmax|SparseMaximum|SparseMinimum|Transpose)|"
    r"Ragged|CSRSparse|DenseToCSR|SparseMatrix|DenseToSparse|DenseToDense|"
    r"AddSparse|AddManySparse|TakeManySparse|Compress|Uncompress|ConvertTo|GetMinibatch|"
    r"GetStatsFrom|SortListOf|StoreMinibatch|Composite|Dataset|DatasetToSingleElement|"
    r"GetElementAtIndex|ReduceDataset|SaveDataset|LoadDataset|BoostedTrees|"
    r"SendTPUEmbedding|RecvTPUEmbedding|ExperimentalGroupBy|Unwrap|Wrap).*",
    r".*Dataset(V\d)?$",
]


def floating_ops() -> list[str]:
    """Ops of the installed TensorFlow with an input or output that may be floating."""
    return list(_scan()[0])


def _scan() -> tuple[dict[str, dict[str, str]], None]:
    """op → {input position: argument name} of its inputs that cannot be floating
    (integers, booleans, strings, handles), for the floating ops; positions only where
    every input is a single tensor (no lists), so that positions are the record's."""
    import tensorflow as tf
    from tensorflow.core.framework import types_pb2
    from tensorflow.python.framework import op_def_registry

    floats = {types_pb2.DT_HALF, types_pb2.DT_BFLOAT16, types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE}
    out: dict[str, dict[str, str]] = {}
    for name in sorted(n for n in dir(tf.raw_ops) if not n.startswith("_")):
        od = op_def_registry.get(name)
        if od is None:
            continue
        attrs = {a.name: a for a in od.attr}

        def floaty(arg: object, attrs: dict = attrs) -> bool:
            if arg.type in floats:  # type: ignore[attr-defined]
                return True
            for key in (arg.type_attr, arg.type_list_attr):  # type: ignore[attr-defined]
                a = attrs.get(key) if key else None
                if a is None:
                    continue
                if not a.HasField("allowed_values") or set(a.allowed_values.list.type) & floats:
                    return True
            return False

        if any(floaty(a) for a in [*od.input_arg, *od.output_arg]):
            simple = all(not (a.number_attr or a.type_list_attr) for a in od.input_arg)
            out[name] = {str(i): a.name for i, a in enumerate(od.input_arg)
                         if simple and not floaty(a)}
    return out, None


def classify(op: str) -> str | None:
    """The op's family, "" for the cannot-list, None when no rule matches."""
    if op in EXPLICIT:
        return EXPLICIT[op]
    for pat, fam in PATTERNS:
        if re.match(pat, op):
            return fam
    if any(re.match(p, op) for p in CANNOT_PATTERNS):
        return ""
    return None


def build() -> tuple[dict[str, object], list[str]]:
    import tensorflow as tf

    ops: dict[str, str] = {}
    cannot: list[str] = []
    unmatched: list[str] = []
    nonfloat, _ = _scan()
    for op in nonfloat:
        fam = classify(op)
        if fam is None:
            unmatched.append(op)
        elif fam:
            ops[op] = fam
        else:
            cannot.append(op)
    table = {
        "about": "How each floating op of TensorFlow's registry can make NaN/∞ from finite "
                 "inputs (families), and the floating ops that cannot. Generated by "
                 "tools/make_optable.py; read by reader/diagnosis/optable.py.",
        "tensorflow": tf.__version__,
        "covered": len(ops) + len(cannot),
        "families": FAMILIES,
        "ops": dict(sorted(ops.items())),
        "cannot": sorted(cannot),
        # op → {input position: name} of inputs that cannot hold NaN (integers, booleans…)
        "nonfloat_inputs": {op: args for op, args in sorted(nonfloat.items()) if args},
    }
    return table, unmatched


def main() -> int:
    if "--floating" in sys.argv[1:]:  # for the coverage test: the registry's floating ops
        print(json.dumps(floating_ops()))
        return 0
    table, unmatched = build()
    if unmatched:
        print(f"{len(unmatched)} floating ops match no rule: {' '.join(unmatched)}",
              file=sys.stderr)
        return 1
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv[1:]:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("optable.json is up to date" if same else "optable.json is stale")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}: {len(table['ops'])} ops in families, "  # type: ignore[arg-type]
          f"{len(table['cannot'])} that cannot, TensorFlow {table['tensorflow']}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
