import BookscanTestSupport
import Foundation
import Testing

/// The throw-away cluster harness does not depend on where the tests run from: started from a
/// folder only its owner may enter (a clone under `/root`, tests as root), the `postgres` user's
/// commands still work and what they print to standard error never reaches the parsed output.
@Suite("PostgreSQL test harness", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct ClusterHarnessTests {
    @Test("started from a 0700 folder (as root: the postgres user cannot enter it), psql answers are only the rows")
    func privateWorkingDirectory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-private-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let previous = FileManager.default.currentDirectoryPath
        // The working directory is the whole test process's: a child another test starts meanwhile inherits
        // this folder as its own, so the folder stays (an empty folder in the temporary directory). Removed,
        // it left such a child without a working directory (node: "ENOENT: uv_cwd" in a CI run).
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        #expect(FileManager.default.changeCurrentDirectoryPath(folder))
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let database = try cluster.freshDatabase()
        try database.psql("CREATE TABLE t (n int)")
        try database.psql("INSERT INTO t VALUES (1), (2), (3)")
        #expect(try database.psql("SELECT count(*) FROM t") == "3\n")
        #expect(try database.psql("SELECT n FROM t ORDER BY n").split(separator: "\n") == ["1", "2", "3"])
    }
}
