/// Runs `body` with `resource` (a started service, harness or proxy), then awaits `stop` on it
/// whether `body` returned or threw: a test's teardown is awaited, never left to a detached task.
package func stopping<Resource: Sendable, T>(
    _ resource: Resource, isolation: isolated (any Actor)? = #isolation, stop: (Resource) async -> Void,
    _ body: (Resource) async throws -> T
) async throws -> T {
    do {
        let result = try await body(resource)
        await stop(resource)
        return result
    } catch {
        await stop(resource)
        throw error
    }
}
