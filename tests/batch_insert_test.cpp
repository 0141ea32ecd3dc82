// BatchInsert writes every row, in order, whatever their number against its
// statement size; NamedStatement binds by name, copying temporaries only.
#include <gtest/gtest.h>

#include <SQLiteCpp/Database.h>

#include <optional>
#include <string>

#include "catalog/batch_insert.hpp"
#include "catalog/named_statement.hpp"

using namespace modelcat;

namespace {

std::string rows_of(SQLite::Database& db) {
    std::string out;
    SQLite::Statement st(db, "SELECT i, name, coalesce(x, 'NULL'), typeof(x) FROM t ORDER BY rowid");
    while (st.executeStep())
        out += st.getColumn(0).getString() + "," + st.getColumn(1).getString() + "," + st.getColumn(2).getString() + "," +
               st.getColumn(3).getString() + ";";
    return out;
}

TEST(BatchInsert, EveryRowInOrderWhateverTheCount) {
    for (size_t n : {size_t{0}, size_t{1}, catalog::BatchInsert::kRows - 1, catalog::BatchInsert::kRows,
                     catalog::BatchInsert::kRows + 1, 3 * catalog::BatchInsert::kRows + 7}) {
        SCOPED_TRACE(n);
        SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE t (i INTEGER, name TEXT, x)");
        catalog::BatchInsert insert(db, "INSERT INTO t (name, i, x) VALUES ", "(:name, :i, :x)");
        std::vector<std::string> names;
        for (size_t i = 0; i < n; ++i) names.push_back("row " + std::to_string(i));
        insert.insert(n, [&](catalog::BatchInsert::Row& row, size_t i) {
            row.bind(":i", static_cast<int64_t>(i));  // bound out of the SQL's order
            row.bind(":name", names[i]);
            row.bind(":x", i % 3 == 0 ? std::optional<int64_t>(i * 10) : std::nullopt);
        });
        std::string expected;
        for (size_t i = 0; i < n; ++i)
            expected += std::to_string(i) + ",row " + std::to_string(i) + "," +
                        (i % 3 == 0 ? std::to_string(i * 10) + ",integer" : std::string("NULL,null")) + ";";
        EXPECT_EQ(rows_of(db), expected);
    }
}

TEST(NamedStatement, TemporariesAreCopiedAndBindingsCleared) {
    SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE t (i INTEGER, name TEXT, x)");
    catalog::NamedStatement st(db, "INSERT INTO t (i, name, x) VALUES (:i, :name, :x)");
    st.bind(":i", 1);
    st.bind(":name", std::string("a temporary, gone before the insert runs"));
    st.bind(":x", "text");
    st.exec();
    st.bind(":i", 2);  // the other parameters are NULL again, not the previous values
    st.exec();
    EXPECT_EQ(rows_of(db), "1,a temporary, gone before the insert runs,text,text;2,,NULL,null;");
    EXPECT_THROW(st.bind(":nope", 1), std::logic_error);
}

}  // namespace
