// Arena starter bot, JSON-lines protocol (docs/bots.md), standard library only.
// Build:  g++ -O2 -std=c++17 -o /tmp/botwars-starter-cpp examples/starters/cpp/bot.cpp
// Check:  botwars bot check cmd:/tmp/botwars-starter-cpp --game arena
// Each line on stdin is one view (arena P11); answer one line of orders (P12) and flush.
// Every robot of yours walks towards the centre and defends there; an adjacent enemy is attacked.
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

static const int CX = 8, CY = 8;

// The integer after "key": inside obj (the engine writes compact JSON); false when absent.
static bool int_after(const std::string& obj, const std::string& key, int& v) {
    std::string pat = "\"" + key + "\":";
    size_t at = obj.find(pat);
    if (at == std::string::npos) return false;
    v = std::atoi(obj.c_str() + at + pat.size());
    return true;
}

int main() {
    std::ios::sync_with_stdio(false);
    const char* names[4] = {"N", "E", "S", "W"};
    const int dx[4] = {0, 1, 0, -1}, dy[4] = {1, 0, -1, 0};
    std::string line;
    while (std::getline(std::cin, line)) {  // ends when the engine closes stdin: then exit
        std::vector<std::tuple<char, int, int>> robots;
        size_t i = line.find("\"robots\":[");
        while (i != std::string::npos) {
            size_t open = line.find('{', i), close;
            if (open == std::string::npos || (close = line.find('}', open)) == std::string::npos) break;
            std::string obj = line.substr(open, close - open + 1);
            int x, y;
            if (int_after(obj, "x", x) && int_after(obj, "y", y))
                robots.emplace_back(obj.find("\"side\":\"F\"") != std::string::npos ? 'F' : 'E', x, y);
            i = close + 1;
            size_t next = line.find_first_not_of(' ', i);
            if (next == std::string::npos || line[next] == ']') break;
        }
        std::set<std::pair<int, int>> foes;
        for (auto& [s, x, y] : robots) if (s == 'E') foes.insert({x, y});
        std::ostringstream out;
        out << "{\"orders\":[";
        bool first = true;
        for (auto& [s, x, y] : robots) {
            if (s != 'F') continue;
            if (!first) out << ",";
            first = false;
            int hit = -1;
            for (int d = 0; d < 4 && hit < 0; ++d) if (foes.count({x + dx[d], y + dy[d]})) hit = d;
            out << "{\"x\":" << x << ",\"y\":" << y;
            if (hit >= 0) out << ",\"action\":\"A\",\"dir\":\"" << names[hit] << "\"}";
            else if (x == CX && y == CY) out << ",\"action\":\"D\"}";
            else if (std::abs(CX - x) >= std::abs(CY - y)) out << ",\"action\":\"M\",\"dir\":\"" << (CX > x ? "E" : "W") << "\"}";
            else out << ",\"action\":\"M\",\"dir\":\"" << (CY > y ? "N" : "S") << "\"}";
        }
        out << "]}";
        std::cout << out.str() << std::endl;  // endl flushes
    }
    return 0;
}
