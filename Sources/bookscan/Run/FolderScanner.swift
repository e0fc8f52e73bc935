import Foundation

/// Finds the photos of a batch: `.jpg`/`.jpeg` files (any case) in a folder, optionally recursive.
/// Other files are listed as skipped with the reason; symlink loops and unreadable entries are
/// reported and passed over, never fatal.
struct FolderScanner {
    struct Found: Equatable {
        /// Absolute path.
        var path: String
        /// Path relative to the batch folder (used to name results).
        var relative: String
    }

    struct Skipped: Equatable {
        var relative: String
        var reason: String
    }

    let root: String
    let recursive: Bool
    /// Folders never entered (the results folder).
    let excluded: Set<String>

    func scan() -> (photos: [Found], skipped: [Skipped]) {
        var photos: [Found] = []
        var skipped: [Skipped] = []
        var visited = Set<String>()
        walk(URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath(), relative: "", photos: &photos, skipped: &skipped, visited: &visited)
        return (photos.sorted { $0.relative < $1.relative }, skipped.sorted { $0.relative < $1.relative })
    }

    private func walk(_ directory: URL, relative: String, photos: inout [Found], skipped: inout [Skipped], visited: inout Set<String>) {
        let real = directory.resolvingSymlinksInPath().path
        guard visited.insert(real).inserted else {
            skipped.append(Skipped(relative: relative.isEmpty ? "." : relative, reason: "symlink loop (already visited)"))
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            skipped.append(Skipped(relative: relative.isEmpty ? "." : relative, reason: "folder cannot be read"))
            return
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            let rel = relative.isEmpty ? name : relative + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                skipped.append(Skipped(relative: rel, reason: "broken link or vanished"))
                continue
            }
            if isDirectory.boolValue {
                if excluded.contains(url.resolvingSymlinksInPath().path) { continue }
                if recursive {
                    walk(url, relative: rel, photos: &photos, skipped: &skipped, visited: &visited)
                } else {
                    skipped.append(Skipped(relative: rel, reason: "folder (use --recursive)"))
                }
                continue
            }
            let ext = url.pathExtension.lowercased()
            guard ext == "jpg" || ext == "jpeg" else {
                skipped.append(Skipped(relative: rel, reason: "not a .jpg/.jpeg file"))
                continue
            }
            var info = stat()
            guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                // A FIFO would be read twice (hash, then scan) and block with no writer; a device never ends.
                skipped.append(Skipped(relative: rel, reason: "not a regular file (FIFO, socket or device)"))
                continue
            }
            photos.append(Found(path: url.path, relative: rel))
        }
    }
}
