import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class ParameterTreeTests: XCTestCase {
    private func tree(_ raws: [String]) throws -> JSONValue? {
        let parser = RequestItemParser(environment: TestEnvironment().environment)
        return try ParameterTree.build(try raws.map { try parser.parse($0) }.compactMap(\.parameterField))
    }

    private func json(_ raws: [String]) throws -> String? { try tree(raws)?.serialized }

    func testNestingKeepsOrderAndTypes() throws {
        XCTAssertEqual(try json(["user[name]=Ann", "tags[]=a", "user[age]:=30", "tags[]:=true"]),
                       #"{"user":{"name":"Ann","age":30},"tags":["a",true]}"#)
    }

    func testIndexesFillGapsWithNull() throws {
        XCTAssertEqual(try json(["a[2]=x", "a[0]=y"]), #"{"a":["y",null,"x"]}"#)
        XCTAssertEqual(try json(["items[0][id]:=1", "items[1][id]:=2", "items[0][n]=a"]),
                       #"{"items":[{"id":1,"n":"a"},{"id":2}]}"#)
    }

    func testTopLevelArray() throws {
        XCTAssertEqual(try json(["[]:=1", "[]=x"]), #"[1,"x"]"#)
        XCTAssertEqual(try json(["[1]=b", "[0]=a"]), #"["a","b"]"#)
    }

    func testRepeatedPlainKeysCollectIntoAnArray() throws {
        XCTAssertEqual(try json(["a=1", "a=2", "a=3"]), #"{"a":["1","2","3"]}"#)
    }

    /// For a form a repeated name stays a repeated member (sent `a=1&a=2`), at any depth.
    func testRepeatedKeysStayRepeatedWhenTheyDoNotCollect() throws {
        let parser = RequestItemParser(environment: TestEnvironment().environment)
        func form(_ raws: [String]) throws -> String? {
            try ParameterTree.build(try raws.map { try parser.parse($0) }.compactMap(\.parameterField), repeatsCollect: false)
                .map(FormRequestSerializer.encode)
        }
        XCTAssertEqual(try form(["a=1", "b=x", "a=2", "a=3"]), "a=1&b=x&a=2&a=3")
        XCTAssertEqual(try form(["u[n]=1", "u[n]=2", "l[0][k]=x", "l[0][k]=y"]), "u%5Bn%5D=1&u%5Bn%5D=2&l%5B%5D%5Bk%5D=x&l%5B%5D%5Bk%5D=y")
        XCTAssertEqual(try form(["t[]=1", "t[]=2"]), "t%5B%5D=1&t%5B%5D=2")
        // A plain name and a nested one are members of their own in either order (`a=1` first
        // was refused, after `a[b]=2` it was not).
        XCTAssertEqual(try form(["a=1", "a[b]=2"]), "a=1&a%5Bb%5D=2")
        XCTAssertEqual(try form(["a[b]=2", "a=1"]), "a%5Bb%5D=2&a=1")
        XCTAssertEqual(try form(["a=1", "a[]=2"]), "a=1&a%5B%5D=2")
        XCTAssertEqual(try form(["a[]=2", "a=1"]), "a%5B%5D=2&a=1")
        // After a plain name, the nested items of that name make one array or object, as they do
        // before it: each made a container of its own (`a=1&a[]&a[]=x&a[]=y`, indexes ignored,
        // a repeated index let through).
        XCTAssertEqual(try form(["a=1", "a[1]=x", "a[0]=y"]), "a=1&a%5B%5D=y&a%5B%5D=x")
        XCTAssertEqual(try form(["a=1", "a[b]=2", "a[c]=3"]), "a=1&a%5Bb%5D=2&a%5Bc%5D=3")
        XCTAssertThrowsError(try form(["a=1", "a[0]=x", "a[0]=y"]))
    }

    /// In JSON `a[]` appends to what a repeated plain name collected, however many times it was
    /// given (`a=1 a[]=2` was refused, `a=1 a=2 a[]=3` was not).
    func testAnAppendAfterAPlainNameCollectsAsARepeatedName() throws {
        XCTAssertEqual(try json(["a=1", "a[]=2"]), #"{"a":["1","2"]}"#)
        XCTAssertEqual(try json(["a=1", "a=2", "a[]=3"]), #"{"a":["1","2","3"]}"#)
        XCTAssertEqual(try json(["a[]=1", "a=2"]), #"{"a":["1","2"]}"#)
        XCTAssertThrowsError(try json(["a=1", "a[b]=2"]))
        XCTAssertThrowsError(try json(["a=1", "a[][b]=2"]))
    }

    func testEscapedBracketsAreLiteralKeys() throws {
        XCTAssertEqual(try json(["a\\[b\\]=1"]), #"{"a[b]":"1"}"#)
    }

    func testConflictsAreUsageErrorsThatPointAtThePart() {
        let cases: [[String]] = [["a[b]=1", "a[]=2"], ["a=1", "a[b]=2"], ["a[]=1", "a[x]=2"], ["a=1", "[]=2"],
                                 ["a[0]=1", "a[0]=2"]]
        for items in cases {
            XCTAssertThrowsError(try tree(items), "\(items)") { error in
                guard case .usage(let message, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains(items[1]), message)
                XCTAssertTrue(hint?.contains("^") ?? false)
            }
        }
    }

    func testNoFieldsMeansNoTree() throws {
        XCTAssertNil(try tree(["X-A:1", "q==1"]))
    }

    func testABracketBeforeACombiningMarkStillOpensAKey() throws {
        XCTAssertEqual(try json(["a[\u{301}b]=1"]), "{\"a\":{\"\u{301}b\":\"1\"}}")
    }

    func testIndexGapsShareABudgetThatGrowsWithTheItems() throws {
        // Regression: `a[100000]` repeated 60 times made 6 million nulls (324 MB) from 1 KB of arguments.
        let one = try XCTUnwrap(try tree(["a[100000]=x"]))
        guard case .object(let members) = one, case .array(let items)? = members.first?.value else { return XCTFail("\(one)") }
        XCTAssertEqual(items.count, 100_001)
        XCTAssertNotNil(try tree(["a[99000]=x", "b[1500]=y", "c[]=z"]))
        XCTAssertThrowsError(try tree(["a[100000]=1", "b[100000]=2", "c[100000]=3"])) { error in
            guard case .usage(let message, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("'b[100000]=2'"), message)
            XCTAssertTrue(message.contains("expand to more than 103000 null values") && message.contains("refusing"), message)
            XCTAssertEqual(hint, "  b[100000]\n   ^")
            XCTAssertEqual(ExitStatus(for: .usage(message, hint: hint)), .usage)
        }
    }

    /// The budget grows with the items only up to a bound: 20,000 items with gaps of 1,000 made
    /// 20 million nulls (1.4 GB as a form) from 260 KB of arguments.
    func testTheGapBudgetHasABoundWhateverTheItemCount() throws {
        XCTAssertEqual(ParameterTree.gapBudget(itemCount: 3), 103_000)
        XCTAssertEqual(ParameterTree.gapBudget(itemCount: 20_000), 1_000_000)
        XCTAssertEqual(ParameterTree.gapBudget(itemCount: 20_000, maxIndex: 2_000_000), 2_000_000)
        let items = (0..<1_100).map { "k\($0)[1000]=x" }
        XCTAssertThrowsError(try tree(items)) { error in
            guard case .usage(let message, _)? = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("'k999[1000]=x'") && message.contains("more than 1000000 null values"), message)
        }
        XCTAssertNotNil(try tree(Array(items.prefix(999))))
    }

    /// A caller may ask for a smaller index limit (the fuzz harnesses do).
    func testASmallerIndexLimitIsHonoured() throws {
        func field(_ key: String) -> RequestParameters.Field { .init(key: key, value: .string("x"), label: key + "=x") }
        XCTAssertNotNil(try ParameterTree.build([field("a[1000]")], maxIndex: 1_000))
        XCTAssertThrowsError(try ParameterTree.build([field("a[1001]")], maxIndex: 1_000))
    }
}
