import FuzzHarness

// Built by scripts/fuzz.sh with -sanitize=fuzzer,address -D FUZZING, this is a libFuzzer target
// (libFuzzer brings main and calls the entry point below). In a normal build it is a replay tool:
// `swift run FuzzWireDecoding FILE_OR_DIR...` runs saved inputs through the same WireDecodingFuzz.run.

#if FUZZING
/// libFuzzer's entry point: a broken invariant must crash so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let outcome = WireDecodingFuzz.run([UInt8](UnsafeRawBufferPointer(start: start, count: count)))
    if case .violation(let what) = outcome { fatalError(what) }
    return 0
}
#else
import Foundation

/// Replays saved inputs through the fuzz harness (exit 1 if any breaks an invariant).
@main
enum FuzzWireDecodingReplay {
    static func main() {
        exit(FuzzReplay.main(arguments: Array(CommandLine.arguments.dropFirst()), name: "FuzzWireDecoding", body: WireDecodingFuzz.run))
    }
}
#endif
