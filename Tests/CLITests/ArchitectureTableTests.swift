import Foundation
import Testing

/// ARCHITECTURE.md's module table names exactly the product's modules: every folder of `Sources/`
/// (one target each in Package.swift), and nothing that is not one.
@Suite("ARCHITECTURE.md's module table against Package.swift")
struct ArchitectureTableTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The backticked names in the first column of the table under `| module |`.
    static func tableModules(_ markdown: String) -> Set<String> {
        var names: Set<String> = []
        var inTable = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| module |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let first = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for piece in first.split(separator: "`").enumerated() where piece.offset % 2 == 1 { names.insert(String(piece.element)) }
        }
        return names
    }

    @Test("every Sources folder is a target of Package.swift and a row of the table; the table names no other module")
    func tableMatchesPackage() throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("Sources").path)
            .filter { !$0.hasPrefix(".") }
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        for module in sources {
            #expect(manifest.contains("name: \"\(module)\""), "Sources/\(module) is no target of Package.swift")
        }
        let table = Self.tableModules(try String(contentsOf: Self.repository.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8))
        #expect(!table.isEmpty, "no module table in ARCHITECTURE.md")
        #expect(Set(sources).subtracting(table).isEmpty, "modules missing from ARCHITECTURE.md's table: \(Set(sources).subtracting(table).sorted())")
        #expect(table.subtracting(sources).isEmpty, "ARCHITECTURE.md's table names modules that are not in Sources/: \(table.subtracting(sources).sorted())")
    }

    @Test("the table reader takes the first column's backticked names only")
    func reader() {
        let markdown = """
            text
            | module | what | depends on |
            |---|---|---|
            | `A`, `B` | uses `NotAModule` | `C` |
            | `D` | x | — |

            | module | later table |
            """
        #expect(Self.tableModules(markdown) == ["A", "B", "D"])
    }
}
