import Foundation

/// Replays saved inputs (files, or every file in a directory) through a fuzz body: what a fuzz
/// executable does when it is built without libFuzzer, and what the regression tests do.
package enum FuzzReplay {
    /// The regular files at `paths`, directories expanded one level, sorted by path.
    package static func inputFiles(_ paths: [String]) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.filter { !$0.hasPrefix(".") }.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files.sorted()
    }

    /// Runs every input through `body`, printing one line each; returns the exit status
    /// (0 when no input broke an invariant, 1 otherwise, 2 when nothing was given).
    package static func main(arguments: [String], name: String, body: ([UInt8]) -> FuzzOutcome) -> Int32 {
        let files = inputFiles(arguments)
        guard !files.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(name) INPUT... (files or directories; build with scripts/fuzz.sh to fuzz)\n".utf8))
            return 2
        }
        var violations = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("\(file): cannot be read\n".utf8))
                violations += 1
                continue
            }
            let outcome = body([UInt8](data))
            if outcome.isViolation { violations += 1 }
            print("\(file): \(outcome)")
        }
        print("\(files.count) inputs, \(violations) violations")
        return violations == 0 ? 0 : 1
    }
}
