// The jaxpr parser on jaxprs printed by JAX 0.10.2 (samples/jaxpr/, facts
// in truth.json taken from JAX's jaxpr objects), old untyped jaxprs, and
// its errors.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/jaxpr.h"
#include "llvm/Support/JSON.h"
#include "parsers/jaxpr_parser.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

absl::StatusOr<ir::JaxprModule> Parse(std::string_view text) {
  auto source = parsers::SourceText::FromString("j.txt", text);
  return parsers::ParseJaxpr(*source);
}

class JaxprSampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JaxprSampleTest, MatchesJaxsOwnFacts) {
  const std::string truth_text = test::ReadFileOrDie(test::SourcePath("samples/jaxpr/truth.json"));
  llvm::Expected<llvm::json::Value> truth = llvm::json::parse(truth_text);
  ASSERT_TRUE(static_cast<bool>(truth));
  const llvm::json::Object* facts = truth->getAsObject()->getObject(GetParam());
  ASSERT_NE(facts, nullptr);
  for (const char* suffix : {".jaxpr", ".source_info.jaxpr"}) {
    SCOPED_TRACE(suffix);
    const std::string path = test::SourcePath("samples/jaxpr/" + GetParam() + suffix);
    auto source = parsers::SourceText::FromString(path, test::ReadFileOrDie(path));
    absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
    ASSERT_TRUE(module.ok()) << module.status();
    const ir::Jaxpr& top = module->jaxpr(module->top);
    EXPECT_EQ(static_cast<int64_t>(top.eqns.size()), *facts->getInteger("eqns"));
    EXPECT_EQ(static_cast<int64_t>(module->eqns.size()), *facts->getInteger("all_eqns"));
    EXPECT_EQ(static_cast<int64_t>(top.constvars.size()), *facts->getInteger("constvars"));
    EXPECT_EQ(static_cast<int64_t>(top.outvars.size()), *facts->getInteger("outvars"));
    const llvm::json::Array* invars = facts->getArray("invars");
    ASSERT_EQ(invars->size(), top.invars.size());
    for (size_t i = 0; i < top.invars.size(); ++i) {
      EXPECT_EQ(module->var(top.invars[i]).aval.text, (*invars)[i].getAsString()->str());
      EXPECT_GE(module->var(top.invars[i]).aval.ByteSize(), 0);
    }
    const llvm::json::Array* primitives = facts->getArray("primitives");
    ASSERT_EQ(primitives->size(), top.eqns.size());
    for (size_t i = 0; i < top.eqns.size(); ++i) {
      EXPECT_EQ(module->eqn(top.eqns[i]).primitive, (*primitives)[i].getAsString()->str());
    }
    if (std::string(suffix) == ".source_info.jaxpr") {
      // JAX annotates each equation made by user code with the line of this
      // script that made it ("# " alone for those made inside JAX).
      const std::string script = test::ReadFileOrDie(test::SourcePath("scripts/gen_jaxpr_samples.py"));
      std::vector<std::string> lines;
      for (size_t start = 0; start <= script.size();) {
        const size_t end = std::min(script.find('\n', start), script.size());
        lines.push_back(script.substr(start, end - start));
        start = end + 1;
      }
      int64_t annotated = 0;
      for (const ir::JaxprEqn& eqn : module->eqns) {
        if (eqn.source.file.empty()) continue;
        ++annotated;
        EXPECT_EQ(eqn.source.file, "scripts/gen_jaxpr_samples.py") << "line " << eqn.input_line;
        ASSERT_GT(eqn.source.line, 0);
        ASSERT_LE(eqn.source.line, static_cast<int64_t>(lines.size()));
        EXPECT_GT(eqn.source.column, 0);
        EXPECT_FALSE(eqn.source.function.empty());
      }
      EXPECT_GT(annotated, 0);
      const ir::JaxprEqn& first = module->eqn(top.eqns[0]);
      if (GetParam() == "mlp_grad") {
        ASSERT_EQ(first.primitive, "dot_general");
        EXPECT_NE(lines[static_cast<size_t>(first.source.line - 1)].find("x @ w"), std::string::npos);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, JaxprSampleTest,
                         ::testing::Values("mlp_grad", "scan_while_cond", "remat_custom_vjp",
                                           "sharding", "consts_gather_conv", "shared_layers"));

TEST(Jaxpr, DotGeneralAndNestedJaxprs) {
  const std::string path = test::SourcePath("samples/jaxpr/mlp_grad.jaxpr");
  auto source = parsers::SourceText::FromString(path, test::ReadFileOrDie(path));
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  ASSERT_TRUE(module.ok()) << module.status();
  const ir::JaxprEqn& dot = module->eqn(module->jaxpr(module->top).eqns[0]);
  ASSERT_EQ(dot.primitive, "dot_general");
  const std::optional<ir::DotDimensionNumbers> dims = ir::DotGeneralDimensions(dot);
  ASSERT_TRUE(dims.has_value());
  EXPECT_EQ(dims->lhs_contracting, std::vector<int64_t>{1});
  EXPECT_EQ(dims->rhs_contracting, std::vector<int64_t>{0});
  EXPECT_TRUE(dims->lhs_batch.empty());
  // custom_jvp_call[call_jaxpr={ ... jit[jaxpr={ ... }] ... }]
  const ir::JaxprEqn& relu = module->eqn(module->jaxpr(module->top).eqns[3]);
  ASSERT_EQ(relu.primitive, "custom_jvp_call");
  ASSERT_EQ(relu.called.size(), 1u);
  EXPECT_EQ(relu.called[0].role, "call_jaxpr");
  EXPECT_EQ(module->jaxpr(relu.called[0].jaxpr).parent, relu.id);
}

// JAX prints some integer params as NumPy scalars (a broadcast_in_dim's
// broadcast_dimensions in a train step's jaxpr): they read as integers.
TEST(Jaxpr, NumpyIntegerScalarsReadAsIntegers) {
  absl::StatusOr<ir::JaxprModule> m = Parse(
      "{ lambda ; a:f32[8,4]. let\n"
      "    b:f32[8,4,2] = broadcast_in_dim[\n"
      "      broadcast_dimensions=(np.int64(0), np.int64(1))\n"
      "      shape=(8, 4, 2)\n"
      "    ] a\n"
      "    c:f32[8,4,2] = broadcast_in_dim[broadcast_dimensions=(np.float64(0), 1) shape=(8, 4, 2)] a\n"
      "  in (b, c) }");
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<ir::JaxprEqnId>& eqns = m->jaxpr(m->top).eqns;
  ASSERT_EQ(eqns.size(), 2u);
  const ir::JaxprParam* dims = m->eqn(eqns[0]).FindParam("broadcast_dimensions");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->value.AsIntList(), (std::vector<int64_t>{0, 1}));
  // Only NumPy's integer types: a float constructor is no integer.
  const ir::JaxprParam* floats = m->eqn(eqns[1]).FindParam("broadcast_dimensions");
  ASSERT_NE(floats, nullptr);
  EXPECT_FALSE(floats->value.AsIntList().has_value());
}

TEST(Jaxpr, SharedJaxprsAndCondBranches) {
  const std::string path = test::SourcePath("samples/jaxpr/shared_layers.jaxpr");
  auto source = parsers::SourceText::FromString(path, test::ReadFileOrDie(path));
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  ASSERT_TRUE(module.ok()) << module.status();
  const ir::Jaxpr& top = module->jaxpr(module->top);
  const ir::JaxprEqn& first = module->eqn(top.eqns[0]);
  const ir::JaxprEqn& second = module->eqn(top.eqns[1]);
  ASSERT_EQ(first.called.size(), 1u);
  EXPECT_EQ(first.called[0].jaxpr, second.called[0].jaxpr);  // both call "layer"
  EXPECT_EQ(module->jaxpr(first.called[0].jaxpr).shared_name, "layer");

  absl::StatusOr<ir::JaxprModule> cond = Parse(
      "{ lambda ; a:i32[] b:bf16[3]. let\n"
      "    d:bf16[3] = cond[\n"
      "      branches=(\n"
      "        { lambda ; e:bf16[3]. let f:bf16[3] = sub e 1.0:bf16[] in (f,) }\n"
      "        { lambda ; g:bf16[3]. let h:bf16[3] = add g 1.0:bf16[] in (h,) }\n"
      "      )\n"
      "    ] a b\n"
      "  in (d,) }\n");
  ASSERT_TRUE(cond.ok()) << cond.status();
  const ir::JaxprEqn& c = cond->eqn(cond->jaxpr(cond->top).eqns[0]);
  ASSERT_EQ(c.called.size(), 2u);
  EXPECT_EQ(c.called[1].role, "branches[1]");
  ASSERT_EQ(c.invars.size(), 2u);
  EXPECT_EQ(cond->var(c.outvars[0]).aval.ByteSize(), 6);
}

TEST(Jaxpr, OldUntypedAndOneLineForms) {
  absl::StatusOr<ir::JaxprModule> old = Parse(
      "{ lambda a ; b c.\n"
      "  let d = add b c\n"
      "      e f = foo[x=1] d a\n"
      "      g = mul e 2.0\n"
      "  in (g, f) }\n");
  ASSERT_TRUE(old.ok()) << old.status();
  const ir::Jaxpr& top = old->jaxpr(old->top);
  ASSERT_EQ(top.eqns.size(), 3u);
  EXPECT_EQ(old->eqn(top.eqns[1]).outvars.size(), 2u);
  EXPECT_EQ(old->eqn(top.eqns[1]).invars.size(), 2u);
  EXPECT_EQ(old->eqn(top.eqns[2]).invars[1].literal, "2.0");
  EXPECT_FALSE(old->var(top.invars[0]).aval.known);

  absl::StatusOr<ir::JaxprModule> one_line =
      Parse("{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos b in (c, 1:i32[]) }");
  ASSERT_TRUE(one_line.ok()) << one_line.status();
  EXPECT_EQ(one_line->jaxpr(one_line->top).eqns.size(), 2u);
  EXPECT_TRUE(one_line->jaxpr(one_line->top).outvars[1].IsLiteral());

  absl::StatusOr<ir::JaxprModule> literals = Parse(
      "{ lambda ; a:f32[2]. let\n"
      "    c:f32[2] = jit[name=_where jaxpr={ lambda ; b:f32[2] d:f32[]. let\n"
      "        e:f32[2] = add b d in (e,) }] a nan:f32[]\n"
      "    g:f32[2] = add c inf:f32[]\n"
      "    h:c64[2] = mul g 1j:c64[]\n"
      "  in (h,) }\n");
  ASSERT_TRUE(literals.ok()) << literals.status();
  EXPECT_EQ(literals->jaxpr(literals->top).eqns.size(), 3u);
  EXPECT_EQ(literals->eqn(literals->jaxpr(literals->top).eqns[0]).invars[1].literal, "nan");
}

TEST(Jaxpr, CommentsAreTolerated) {
  absl::StatusOr<ir::JaxprModule> m = Parse(
      "{ lambda ; a:f32[3]. // inputs\n"
      "  let\n"
      "    //relu\n"
      "    b:f32[3] = max a 0.0 ##ch \xe5\xb7\xb2\n"
      "    c:f32[3] = dot_general[#w4\n"
      "      dimension_numbers=(((0,), (0,)), ((), ()))\n"
      "    ] b b\n"
      "  in (c,) }\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->jaxpr(m->top).eqns.size(), 2u);
}

TEST(Jaxpr, ErrorsAreLocated) {
  absl::StatusOr<ir::JaxprModule> unknown = Parse("{ lambda ; a:f32[]. let\n  b:f32[] = sin z\n in (b,) }");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("j.txt:2:17: error: expected a variable bound earlier"),
            std::string::npos)
      << unknown.status();
  absl::StatusOr<ir::JaxprModule> no_in = Parse("{ lambda ; a:f32[]. let b:f32[] = sin a");
  ASSERT_FALSE(no_in.ok());
  EXPECT_NE(no_in.status().message().find("j.txt:1:"), std::string::npos) << no_in.status();
  absl::StatusOr<ir::JaxprModule> bad_type = Parse("{ lambda ; a:f32[2,. let in (a,) }");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("expected a dimension"), std::string::npos) << bad_type.status();
  absl::StatusOr<ir::JaxprModule> trailing = Parse("{ lambda ; . let in () } x");
  ASSERT_FALSE(trailing.ok());
  EXPECT_NE(trailing.status().message().find("expected the end of the jaxpr"), std::string::npos);
  const std::string deep(5000, '(');
  absl::StatusOr<ir::JaxprModule> nested = Parse("{ lambda ; . let a = p[x=" + deep + "] in () }");
  ASSERT_FALSE(nested.ok());
}

}  // namespace
}  // namespace memplan
