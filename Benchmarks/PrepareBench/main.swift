import BookscanBase
// PrepareBench: times ImagePreparer(longSide:).prepare(bytes:) on JPEG files already in memory
// (DCT-scaled decode + EXIF orientation + fit long side + encode). File reading is not timed.
//
//   PrepareBench [--iterations N] [--warmup N] [--long-side 1920] [--raw FILE] IMAGE...
//
// Prints a table (median / p90 ms per image) and, with --raw, appends one line per timed call:
// `swift<TAB>image<TAB>milliseconds` (the format prepare_pillow.py writes too).
import Foundation
import ImageKit
import ImagePreparation

struct Options {
    var iterations = 20
    var warmup = 2
    var longSide = 1920
    var raw: String?
    var images: [String] = []

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var options = Options()
        var index = 0
        func value(_ name: String) -> Result<String, UsageError> {
            index += 1
            guard index < arguments.count else { return .failure(UsageError("missing value for \(name)")) }
            return .success(arguments[index])
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--iterations", "--warmup", "--long-side":
                switch value(argument) {
                case .failure(let error): return .failure(error)
                case .success(let text):
                    guard let number = Int(text), number >= 0 else { return .failure(UsageError("\(argument) needs a number")) }
                    if argument == "--iterations" { options.iterations = max(1, number) }
                    if argument == "--warmup" { options.warmup = number }
                    if argument == "--long-side" { options.longSide = max(16, number) }
                }
            case "--raw":
                switch value(argument) {
                case .failure(let error): return .failure(error)
                case .success(let text): options.raw = text
                }
            case "-h", "--help":
                return .failure(UsageError(""))
            default:
                if argument.hasPrefix("--") { return .failure(UsageError("unknown option \(argument)")) }
                options.images.append(argument)
            }
            index += 1
        }
        if options.images.isEmpty { return .failure(UsageError("give at least one JPEG")) }
        return .success(options)
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = p * Double(sorted.count - 1)
    let lo = Int(rank.rounded(.down)), hi = Int(rank.rounded(.up))
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - Double(lo))
}

func fmt(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

func main() -> Int32 {
    let options: Options
    switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .success(let parsed): options = parsed
    case .failure(let error):
        if !error.message.isEmpty { FileHandle.standardError.write(Data("PrepareBench: \(error.message)\n".utf8)) }
        print("usage: PrepareBench [--iterations N] [--warmup N] [--long-side PX] [--raw FILE] IMAGE...")
        return error.message.isEmpty ? 0 : 64
    }
    let preparer = ImagePreparer(longSide: options.longSide)
    let clock = ContinuousClock()
    var rawLines: [String] = []
    var all: [Double] = []
    print("PrepareBench: ImagePreparer(longSide: \(options.longSide)).prepare(bytes:), \(options.iterations) timed + \(options.warmup) warm-up calls per image")
    print("| image | source | output | bytes out | median ms | p90 ms |")
    print("|---|---|---|---|---|---|")
    for path in options.images {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("PrepareBench: cannot read \(path)\n".utf8))
            return 3
        }
        let bytes = [UInt8](data)
        var times: [Double] = []
        var last: PreparedImage?
        for iteration in 0..<(options.warmup + options.iterations) {
            let started = clock.now
            do {
                last = try preparer.prepare(bytes: bytes)
            } catch {
                FileHandle.standardError.write(Data("PrepareBench: \(path): \(error)\n".utf8))
                return 6
            }
            let elapsed = (clock.now - started).inMilliseconds
            if iteration >= options.warmup { times.append(elapsed) }
        }
        let name = (path as NSString).lastPathComponent
        for time in times { rawLines.append("swift\t\(name)\t\(fmt(time, 3))") }
        all += times
        let source = last.map { "\($0.originalWidth)×\($0.originalHeight)" } ?? "?"
        let output = last.map { "\($0.width)×\($0.height)" } ?? "?"
        print("| \(name) | \(source) | \(output) | \(last?.jpeg.count ?? 0) | \(fmt(percentile(times, 0.5))) | \(fmt(percentile(times, 0.9))) |")
    }
    print("| **all** | | | | **\(fmt(percentile(all, 0.5)))** | **\(fmt(percentile(all, 0.9)))** |")
    if let raw = options.raw {
        let text = rawLines.joined(separator: "\n") + "\n"
        if let handle = FileHandle(forWritingAtPath: raw) {
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try? handle.close()
        } else if !FileManager.default.createFile(atPath: raw, contents: Data(text.utf8)) {
            FileHandle.standardError.write(Data("PrepareBench: cannot write \(raw)\n".utf8))
            return 4
        }
    }
    return 0
}

exit(main())
